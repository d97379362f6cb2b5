/**
 * Gate 2: every guard runs after the waterfall, in registration order. A guard
 * returns nothing, a reason to deny, or `{ ask: reason }` to require an
 * approval whatever gate 1 decided; throwing, or returning anything else,
 * denies. The first denial ends the call (deny > ask > allow); the asks are
 * gathered and put, with gate 1's, as one question (ask.ts). Nothing after
 * this point can turn a denial into an allow, nor an ask into one without an
 * approval.
 */
import { describeError } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { GuardEntry } from '../registry.js'
import type { Execution } from '../types.js'
import { sourceOf } from './sources.js'
import type { Ask, Call, Guarded } from './state.js'

/**
 * The guard's name in a source: its function's name, else its place among its
 * plugin's guards ("#2"), so an anonymous guard is still told apart.
 */
function guardDetail(call: Call, guard: GuardEntry): string {
  const named = guard.fn.name
  if (named) return named
  let n = 0
  for (const g of call.gates.guards) {
    if (g.ownerName === guard.ownerName) n++
    if (g === guard) break
  }
  return `#${n}`
}

function denied(call: Call, guard: GuardEntry, message: string): Guarded {
  return { kind: 'refused', result: errorResult(call.callId, call.name, 'DENIED', message, sourceOf('guard', guard.ownerName, guardDetail(call, guard))) }
}

function failed(call: Call, guard: GuardEntry, error: unknown): Guarded {
  return denied(call, guard, `guard of plugin ${guard.ownerName} failed: ${describeError(error)}`)
}

/** A verdict read: undefined to pass, an ask, or the call's denial. */
function judge(call: Call, guard: GuardEntry, verdict: unknown): Guarded | Ask | undefined {
  if (verdict === undefined || verdict === null) return
  if (typeof verdict === 'string' && verdict) return denied(call, guard, verdict)
  const ask = typeof verdict === 'object' && !Array.isArray(verdict) ? (verdict as { ask?: unknown }).ask : undefined
  if (typeof ask === 'string' && ask && Object.keys(verdict).length === 1) {
    const detail = guardDetail(call, guard)
    return { reason: ask, asker: `guard ${detail} of plugin ${guard.ownerName}`, source: sourceOf('guard', guard.ownerName, detail) }
  }
  return denied(call, guard, `guard of plugin ${guard.ownerName} returned ${JSON.stringify(verdict) ?? typeof verdict}, not a reason, { ask: reason } or undefined`)
}

const isAsk = (judged: NonNullable<Guarded> | Ask): judged is Ask => 'asker' in judged

/**
 * The first denial, the asks, or undefined when all pass. Synchronous while the guards are;
 * the first guard that answers with a promise moves the rest onto it.
 */
export function runGuards(call: Call, exec: Execution, from = 0, asks?: Ask[]): Guarded | Promise<Guarded> {
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
        (settled) => {
          const judged = judge(call, guards[i], settled)
          if (judged && !isAsk(judged)) return judged
          if (judged) (asks ??= []).push(judged)
          return runGuards(call, exec, i + 1, asks)
        },
        (error) => failed(call, guards[i], error),
      )
    }
    if (verdict === undefined) continue
    const judged = judge(call, guards[i], verdict)
    if (!judged) continue
    if (!isAsk(judged)) return judged
    ;(asks ??= []).push(judged)
  }
  return asks ? { kind: 'ask', asks } : undefined
}
