/**
 * Gate 2: every guard runs after the waterfall, in registration order. A guard
 * returns a reason to deny or nothing; throwing, or returning anything else,
 * denies too. Nothing after this point can turn a denial into an allow.
 */
import { describeError } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { GuardEntry } from '../registry.js'
import type { Execution, ToolResult } from '../types.js'
import type { Call } from './state.js'

/**
 * The `DENIED` result of the first guard that refuses, or undefined when all pass. Synchronous
 * while the guards are; the first guard that answers with a promise moves the rest onto it.
 */
export function runGuards(call: Call, exec: Execution, from = 0): ToolResult | undefined | Promise<ToolResult | undefined> {
  const guards = call.gates.guards
  for (let i = from; i < guards.length; i++) {
    let verdict: unknown
    try {
      verdict = guards[i].fn(exec)
    } catch (error) {
      return failed(call, guards[i], error)
    }
    if (verdict && typeof (verdict as Promise<unknown>).then === 'function') {
      return Promise.resolve(verdict).then(
        (settled) => judge(call, guards[i], settled) ?? runGuards(call, exec, i + 1),
        (error) => failed(call, guards[i], error),
      )
    }
    const refused = judge(call, guards[i], verdict)
    if (refused) return refused
  }
}

function failed(call: Call, guard: GuardEntry, error: unknown): ToolResult {
  return errorResult(call.callId, call.name, 'DENIED', `guard of plugin ${guard.ownerName} failed: ${describeError(error)}`)
}

function judge(call: Call, guard: GuardEntry, verdict: unknown): ToolResult | undefined {
  if (verdict === undefined || verdict === null) return
  if (typeof verdict === 'string' && verdict) return errorResult(call.callId, call.name, 'DENIED', verdict)
  return errorResult(call.callId, call.name, 'DENIED', `guard of plugin ${guard.ownerName} returned ${JSON.stringify(verdict) ?? typeof verdict}, not a reason or undefined`)
}
