export * from './config.js'
export * from './plugin.js'
export { Streaks } from './streaks.js'
