export * from './format.js'
export * from './plugin.js'
export { PromptQueue } from './queue.js'
export { DEFAULT_DENY_REASON, promptOnce, type TerminalIO } from './prompt.js'
