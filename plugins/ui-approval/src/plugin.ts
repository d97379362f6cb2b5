/**
 * ui-approval: answers `approval/request` on an interactive terminal. Without
 * a TTY on both sides it registers nothing, so requests end `unavailable` and
 * their calls are refused — a prompt nobody can see must not hang a call.
 */
import type { Context } from 'cordis'
import Schema from 'schemastery'
import type { Readable, Writable } from 'node:stream'
import type {} from '@dsh/approval'
import { defaultLimits, type FormatLimits } from './format.js'
import { promptOnce } from './prompt.js'
import { PromptQueue } from './queue.js'

export const name = 'ui-approval'

export interface Config {
  /** the terminal's input (default process.stdin) */
  input?: Readable
  /** the terminal's output (default process.stdout) */
  output?: Writable
  maxValueChars: number
  maxItems: number
  maxDepth: number
  maxLines: number
}

export const Config: Schema<Config> = Schema.object({
  input: Schema.any().description('the terminal input stream (default process.stdin)'),
  output: Schema.any().description('the terminal output stream (default process.stdout)'),
  maxValueChars: Schema.natural().min(8).default(defaultLimits.maxValueChars).description('longest string value shown before it is cut'),
  maxItems: Schema.natural().min(1).default(defaultLimits.maxItems).description('most array items or object keys shown per level'),
  maxDepth: Schema.natural().min(1).default(defaultLimits.maxDepth).description('deepest nesting shown'),
  maxLines: Schema.natural().min(3).default(defaultLimits.maxLines).description('most lines of arguments shown'),
})

/** True when both streams are terminals. */
export function isInteractive(input: unknown, output: unknown): boolean {
  return (input as { isTTY?: unknown })?.isTTY === true && (output as { isTTY?: unknown })?.isTTY === true
}

export function apply(ctx: Context, config: Partial<Config> = {}): void {
  const io = { input: config.input ?? process.stdin, output: config.output ?? process.stdout }
  if (!isInteractive(io.input, io.output)) return
  const limits: FormatLimits = {
    maxValueChars: config.maxValueChars ?? defaultLimits.maxValueChars,
    maxItems: config.maxItems ?? defaultLimits.maxItems,
    maxDepth: config.maxDepth ?? defaultLimits.maxDepth,
    maxLines: config.maxLines ?? defaultLimits.maxLines,
  }
  const queue = new PromptQueue()
  // disposing the plugin dismisses whatever it is showing
  const disposed = new AbortController()
  ctx.on('dispose', () => disposed.abort())
  ctx.on('approval/request', (request) => {
    const signal = AbortSignal.any([request.signal, disposed.signal])
    return queue.run(signal, () => promptOnce(request, io, limits, signal), () => ({ kind: 'unavailable', reason: 'the request was withdrawn before it was shown' }))
  })
}
