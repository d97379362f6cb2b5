export * from './kernel-handle.js'
export * from './output.js'
export * from './tool-set.js'
export * from './follow.js'
