export * from './limits.js'
export * from './types.js'
export * from './runtime.js'
