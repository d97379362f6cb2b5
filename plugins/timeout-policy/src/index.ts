export * from './config.js'
export * from './deadline.js'
export * from './plugin.js'
