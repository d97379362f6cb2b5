/**
 * Gate 2: every guard runs after the waterfall, in registration order. A guard
 * returns a reason to deny or nothing; throwing, or returning anything else,
 * denies too. Nothing after this point can turn a denial into an allow.
 */
import { describeError } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { GuardEntry } from '../registry.js'
import type { ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

/** Synchronous while the guards are; the first guard that answers with a promise moves the rest onto it. */
export function runGuards(_env: PipelineEnv, state: CallState, from = 0): ToolResult | undefined | Promise<ToolResult | undefined> {
  const guards = state.gates.guards
  for (let i = from; i < guards.length; i++) {
    let verdict: unknown
    try {
      verdict = guards[i].fn(state.exec!)
    } catch (error) {
      return failed(state, guards[i], error)
    }
    if (verdict && typeof (verdict as Promise<unknown>).then === 'function') {
      return Promise.resolve(verdict).then(
        (settled) => judge(state, guards[i], settled) ?? runGuards(_env, state, i + 1),
        (error) => failed(state, guards[i], error),
      )
    }
    const refused = judge(state, guards[i], verdict)
    if (refused) return refused
  }
}

function failed(state: CallState, guard: GuardEntry, error: unknown): ToolResult {
  return errorResult(state.callId, state.name, 'DENIED', `guard of plugin ${guard.ownerName} failed: ${describeError(error)}`)
}

function judge(state: CallState, guard: GuardEntry, verdict: unknown): ToolResult | undefined {
  if (verdict === undefined || verdict === null) return
  if (typeof verdict === 'string' && verdict) return errorResult(state.callId, state.name, 'DENIED', verdict)
  return errorResult(state.callId, state.name, 'DENIED', `guard of plugin ${guard.ownerName} returned ${JSON.stringify(verdict) ?? typeof verdict}, not a reason or undefined`)
}
