/**
 * Gate 1: the `tools/pre-execute` waterfall decides allow, deny or ask. A
 * listener that throws, or returns anything but a decision, denies. An `ask`
 * is held, not asked yet: the guards run first (a guard's deny ends the call
 * with nobody asked; a guard's own ask joins it), then ask.ts puts one
 * question to the approval service.
 */
import { compose, describeError, Inflight } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { Execution, PreToolDecision } from '../types.js'
import { listenerOwner, listenerSource, sourceOf } from './sources.js'
import type { Call, Gate1, PipelineEnv } from './state.js'

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = () => ALLOW
const ALLOWED: Gate1 = Object.freeze({ kind: 'allow' })
/** what no listener returns: the first decision seen is always someone's */
const NOTHING = Symbol('nothing yet')

/** What a listener settled with: a decision, or a failure (a throw, or something that is not a decision). */
type Seen = PreToolDecision | { readonly kind: 'failed'; readonly reason: string }

function checkDecision(value: unknown): Seen {
  const d = value as PreToolDecision
  if (!d || typeof d !== 'object') return { kind: 'failed', reason: `a tools/pre-execute listener returned ${JSON.stringify(value) ?? String(value)}, not a decision` }
  if (d.kind === 'allow') return d
  if (d.kind === 'deny') {
    const deny: PreToolDecision = { kind: 'deny', reason: typeof d.reason === 'string' && d.reason ? d.reason : 'denied by a tools/pre-execute listener' }
    if (d.source !== undefined) deny.source = d.source
    return deny
  }
  if (d.kind === 'ask') {
    const ask: PreToolDecision = { kind: 'ask', reason: typeof d.reason === 'string' ? d.reason : undefined }
    if (d.sandboxMode !== undefined) ask.sandboxMode = d.sandboxMode
    if (d.source !== undefined) ask.source = d.source
    return ask
  }
  return { kind: 'failed', reason: `a tools/pre-execute listener returned an unknown decision kind ${JSON.stringify((d as any).kind)}` }
}

const RANK = { allow: 0, ask: 1, deny: 2, failed: 3 } as const


/**
 * Decisions are monotone: a listener that called `next()` and got a deny (or
 * an ask, or a failure) back cannot return anything weaker. The strictest
 * decision any listener settled with wins; a listener that answers without
 * calling `next()` decides for the listeners after it, which never ran.
 */
export async function preExecute(env: PipelineEnv, call: Call, exec: Execution): Promise<Gate1> {
  let strictest: Seen = ALLOW
  /** the listener whose decision stands (its index in the gate set), and what it returned */
  let decidedBy = -1
  let decidedWith: unknown = NOTHING
  const observe = (outcome: unknown, threw: boolean, index: number) => {
    const seen: Seen = threw ? { kind: 'failed', reason: `a tools/pre-execute listener failed: ${describeError(outcome)}` } : checkDecision(outcome)
    // at equal strictness the outer listener wins: it saw the inner decision and may combine reasons
    if (RANK[seen.kind] >= RANK[strictest.kind]) {
      strictest = seen
      // an outer listener handing the same decision on did not make it
      if (outcome !== decidedWith) decidedBy = index
      decidedWith = outcome
    }
  }
  const started = new Inflight()
  try {
    await compose(call.gates.pre, exec, allow, { observe, started })
  } catch {
    // already observed as a failure
  }
  // a listener that returned without waiting for next() does not outrun an inner deny
  const running = started.settled()
  if (running) await running
  const decision = strictest as Seen
  if (decision.kind === 'allow') return ALLOWED
  const plugin = listenerOwner(env.lists.pre, call.gates.pre[decidedBy])
  switch (decision.kind) {
    case 'failed': return { kind: 'refused', result: errorResult(call.callId, call.name, 'DENIED', decision.reason, sourceOf('pre-execute', plugin)) }
    case 'deny': return { kind: 'refused', result: errorResult(call.callId, call.name, 'DENIED', decision.reason, listenerSource('pre-execute', plugin, decision.source)) }
    case 'ask': {
      // who asked, for a refusal the model and its user can act on: the plugin owning the listener
      const asker = plugin !== undefined ? `plugin ${plugin}` : 'a tools/pre-execute listener'
      return { kind: 'ask', asks: [{ reason: decision.reason, asker, sandboxMode: decision.sandboxMode, source: listenerSource('pre-execute', plugin, decision.source) }] }
    }
  }
}
