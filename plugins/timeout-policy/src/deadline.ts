/**
 * One call under a deadline. The deadline is a signal the body observes; the
 * pipeline fuses it with the caller's, so a caller's earlier abort still wins.
 * The body is awaited whatever happens (the pipeline never abandons it), and
 * the timer is cleared once the call settles, so nothing outlives the call.
 */
import { KernelError } from '@dsh/kernel'
import type { ToolResult } from '@dsh/tools'

export type Next = (override?: { signal?: AbortSignal }) => Promise<ToolResult>

/** The abort reason of a deadline: the pipeline turns it into a `TIMEOUT` result with this message. */
export function deadlineError(tool: string, ms: number): KernelError {
  return new KernelError('TIMEOUT', `${tool} exceeded its ${ms} ms limit`, { details: { tool, limitMs: ms } })
}

export async function withDeadline(tool: string, ms: number, next: Next): Promise<ToolResult> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(deadlineError(tool, ms)), ms)
  try {
    return await next({ signal: controller.signal })
  } finally {
    clearTimeout(timer)
  }
}
