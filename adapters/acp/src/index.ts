export * from './protocol.js'
export * from './describe-call.js'
export * from './permission.js'
export * from './answer-over-acp.js'
