/**
 * Gate 2: every guard runs after the waterfall, in registration order. A guard
 * returns a reason to deny or nothing; throwing, or returning anything else,
 * denies too. Nothing after this point can turn a denial into an allow.
 */
import { describeError } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

export async function runGuards(_env: PipelineEnv, state: CallState): Promise<ToolResult | undefined> {
  const { callId, name } = state
  for (const guard of state.gates.guards) {
    let verdict: unknown
    try {
      verdict = guard.fn(state.exec!)
      if (verdict && typeof (verdict as Promise<unknown>).then === 'function') verdict = await verdict
    } catch (error) {
      return errorResult(callId, name, 'DENIED', `guard of plugin ${guard.ownerName} failed: ${describeError(error)}`)
    }
    if (verdict === undefined || verdict === null) continue
    if (typeof verdict === 'string' && verdict) return errorResult(callId, name, 'DENIED', verdict)
    return errorResult(callId, name, 'DENIED', `guard of plugin ${guard.ownerName} returned ${JSON.stringify(verdict) ?? typeof verdict}, not a reason or undefined`)
  }
}
