export * from './config.js'
export * from './names.js'
export * from './plugin.js'
export type { ServerState } from './server.js'
