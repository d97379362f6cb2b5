export * from './attributes.js'
export * from './config.js'
export * from './plugin.js'
