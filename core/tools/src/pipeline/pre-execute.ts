/**
 * Gate 1: the `tools/pre-execute` waterfall decides allow, deny or ask. A
 * listener that throws, or returns anything but a decision, denies. `ask` goes
 * to the approval service; only `approved` continues, and every other outcome
 * — no service, a failure, `denied`, `unavailable` — denies.
 */
import { compose, describeError } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { PreToolDecision, ToolResult } from '../types.js'
import type { CallState, PipelineEnv } from './state.js'

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = () => ALLOW

function checkDecision(value: unknown): PreToolDecision | string {
  const d = value as PreToolDecision
  if (!d || typeof d !== 'object') return `a tools/pre-execute listener returned ${JSON.stringify(value) ?? String(value)}, not a decision`
  if (d.kind === 'allow') return d
  if (d.kind === 'deny') return { kind: 'deny', reason: typeof d.reason === 'string' && d.reason ? d.reason : 'denied by a tools/pre-execute listener' }
  if (d.kind === 'ask') return { kind: 'ask', reason: typeof d.reason === 'string' ? d.reason : undefined }
  return `a tools/pre-execute listener returned an unknown decision kind ${JSON.stringify((d as any).kind)}`
}

export async function preExecute(env: PipelineEnv, state: CallState): Promise<ToolResult | undefined> {
  const { callId, name } = state
  const exec = state.exec!
  let decision: PreToolDecision | string
  if (state.gates.pre.length === 0) decision = ALLOW
  else {
    try {
      decision = checkDecision(await compose(state.gates.pre, undefined, exec, allow))
    } catch (error) {
      decision = `a tools/pre-execute listener failed: ${describeError(error)}`
    }
  }
  if (typeof decision === 'string') return errorResult(callId, name, 'DENIED', decision)
  if (decision.kind === 'allow') return
  if (decision.kind === 'deny') return errorResult(callId, name, 'DENIED', decision.reason)
  return ask(env, state, decision.reason)
}

async function ask(env: PipelineEnv, state: CallState, reason: string | undefined): Promise<ToolResult | undefined> {
  const { callId, name } = state
  const approval = env.approval()
  if (!approval) return errorResult(callId, name, 'APPROVAL_UNAVAILABLE', `approval required${reason ? ` (${reason})` : ''} but no approval service is running`)
  try {
    const outcome = await approval.request({ exec: state.exec!, reason })
    if (outcome?.kind === 'approved') {
      if (outcome.sandboxMode) {
        state.approvedSandboxMode = outcome.sandboxMode
        state.record.approvedSandboxMode = outcome.sandboxMode
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
