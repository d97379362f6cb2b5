export * from './plugin.js'
export * from './config.js'
export { mkdirChecked, openChecked, PathRefused, resolveTarget, type Target } from './paths.js'
