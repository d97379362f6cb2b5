/**
 * The one error class of the kernel. Every code is closed over `ErrorCode` and
 * documented in docs/errors.md (a test keeps the two in step).
 */
export const errorCodes = {
  // codes that appear in tool results
  UNKNOWN_TOOL: 'the named tool is not visible to this caller',
  INVALID_ARGS: 'the arguments are not lossless JSON or do not match the tool schema',
  DENIED: 'a listener, guard, approval or policy denied the call',
  APPROVAL_UNAVAILABLE: 'approval was required but nobody could answer',
  ABORTED_BEFORE_DISPATCH: 'the caller aborted before the tool body started',
  ABORTED: 'the caller aborted while the tool body was running',
  TIMEOUT: 'a deadline fired while the tool body was running',
  TOOL_FAILED: 'the tool body threw or returned an invalid output',
  BLOCKED: 'a post-execute listener blocked the result',
  SANDBOX_UNAVAILABLE: 'no sandbox backend can confine the command',
  // kernel codes (thrown to hosts and plugin authors)
  INVALID_TOOL: 'a tool definition is malformed',
  DUPLICATE_TOOL: 'a tool with this name is already registered',
  INVALID_CONFIG: 'a configuration value is invalid',
  INVALID_EVENT: 'a session event cannot be serialized',
  SESSION_CLOSED: 'the session was closed',
  SESSION_WRITE_FAILED: 'the session log could not be written',
  NO_TURN: 'the operation requires an open turn',
  NEXT_CALLED_TWICE: 'a waterfall listener called next() more than once',
  PLUGIN_FAILED: 'a plugin failed to load or is missing a service',
  INVALID_POLICY: 'a sandbox policy is malformed',
} as const

export type ErrorCode = keyof typeof errorCodes

/** The codes that a `ToolResult.error.code` may carry. */
export type ResultErrorCode =
  | 'UNKNOWN_TOOL' | 'INVALID_ARGS' | 'DENIED' | 'APPROVAL_UNAVAILABLE'
  | 'ABORTED_BEFORE_DISPATCH' | 'ABORTED' | 'TIMEOUT' | 'TOOL_FAILED'
  | 'BLOCKED' | 'SANDBOX_UNAVAILABLE'

export interface KernelErrorOptions {
  cause?: unknown
  /** extra structured facts: the tool, plugin, path or value at fault */
  details?: Record<string, unknown>
}

const BRAND = Symbol.for('dsh.KernelError')

export class KernelError extends Error {
  override name = 'KernelError'
  /** recognised across copies of this package (a plugin may bundle its own) */
  readonly [BRAND] = true
  readonly code: ErrorCode
  readonly details?: Record<string, unknown>

  constructor(code: ErrorCode, message: string, options: KernelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options.details) this.details = options.details
  }

  static is(value: unknown, code?: ErrorCode): value is KernelError {
    return typeof value === 'object' && value !== null && (value as any)[BRAND] === true
      && isErrorCode((value as KernelError).code) && (code === undefined || (value as KernelError).code === code)
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorCodes, value)
}

/** A readable one-line message for anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}
