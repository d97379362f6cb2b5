/**
 * Gate 1: the `tools/pre-execute` waterfall decides allow, deny or ask. A
 * listener that throws, or returns anything but a decision, denies. `ask` goes
 * to the approval service; only `approved` continues, and every other outcome
 * — no service, a failure, `denied`, `unavailable` — denies.
 */
import { compose, describeError, Inflight } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { SandboxModeName } from '../approval-gate.js'
import type { PreToolDecision, ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = () => ALLOW

function checkDecision(value: unknown): PreToolDecision | string {
  const d = value as PreToolDecision
  if (!d || typeof d !== 'object') return `a tools/pre-execute listener returned ${JSON.stringify(value) ?? String(value)}, not a decision`
  if (d.kind === 'allow') return d
  if (d.kind === 'deny') return { kind: 'deny', reason: typeof d.reason === 'string' && d.reason ? d.reason : 'denied by a tools/pre-execute listener' }
  if (d.kind === 'ask') {
    const ask: PreToolDecision = { kind: 'ask', reason: typeof d.reason === 'string' ? d.reason : undefined }
    if (d.sandboxMode !== undefined) ask.sandboxMode = d.sandboxMode
    return ask
  }
  return `a tools/pre-execute listener returned an unknown decision kind ${JSON.stringify((d as any).kind)}`
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const

function rank(decision: PreToolDecision | string): number {
  return typeof decision === 'string' ? 3 : RANK[decision.kind]
}

/**
 * Decisions are monotone: a listener that called `next()` and got a deny (or
 * an ask, or a failure) back cannot return anything weaker. The strictest
 * decision any listener settled with wins; a listener that answers without
 * calling `next()` decides for the listeners after it, which never ran.
 */
export async function preExecute(env: PipelineEnv, state: CallState): Promise<ToolResult | undefined> {
  let strictest: PreToolDecision | string = ALLOW
  const observe = (outcome: unknown, threw: boolean) => {
    const seen = threw ? `a tools/pre-execute listener failed: ${describeError(outcome)}` : checkDecision(outcome)
    // at equal strictness the outer listener wins: it saw the inner decision and may combine reasons
    if (rank(seen) >= rank(strictest)) strictest = seen
  }
  const started = new Inflight()
  try {
    await compose(state.gates.pre, undefined, state.exec!, allow, undefined, observe, started)
  } catch {
    // already observed as a failure
  }
  // a listener that returned without waiting for next() does not outrun an inner deny
  const running = started.settled()
  if (running) await running
  const decision = strictest as PreToolDecision | string
  const { callId, name } = state
  if (typeof decision === 'string') return errorResult(callId, name, 'DENIED', decision)
  if (decision.kind === 'allow') return
  if (decision.kind === 'deny') return errorResult(callId, name, 'DENIED', decision.reason)
  return ask(env, state, decision.reason, decision.sandboxMode)
}

async function ask(env: PipelineEnv, state: CallState, reason: string | undefined, sandboxMode: SandboxModeName | undefined): Promise<ToolResult | undefined> {
  const { callId, name } = state
  const approval = env.approval()
  if (!approval) return errorResult(callId, name, 'APPROVAL_UNAVAILABLE', `approval required${reason ? ` (${reason})` : ''} but no approval service is running`)
  try {
    const outcome = await approval.request(sandboxMode ? { exec: state.exec!, reason, sandboxMode } : { exec: state.exec!, reason })
    if (outcome?.kind === 'approved') {
      if (outcome.sandboxMode) {
        state.approvedSandboxMode = outcome.sandboxMode
        state.record = { ...state.record, approvedSandboxMode: outcome.sandboxMode }
      }
      return
    }
    if (outcome?.kind === 'denied') return errorResult(callId, name, 'DENIED', `approval denied: ${outcome.reason}`)
    const why = outcome?.kind === 'unavailable' ? outcome.reason : 'the approval service gave no outcome'
    return errorResult(callId, name, 'APPROVAL_UNAVAILABLE', `approval unavailable: ${why}`)
  } catch (error) {
    return errorResult(callId, name, 'APPROVAL_UNAVAILABLE', `approval failed: ${describeError(error)}`)
  }
}
