/**
 * Gate 1: the `tools/pre-execute` waterfall decides allow, deny or ask. A
 * listener that throws, or returns anything but a decision, denies. `ask` goes
 * to the approval service; only `approved` continues, and every other outcome
 * — no service, a failure, `denied`, `unavailable` — denies.
 */
import type { Context } from 'cordis'
import { compose, describeError, Inflight, ownerName, unwrapListener } from '@dsh/kernel'
import { errorResult } from '../results.js'
import type { SandboxMode } from '@dsh/kernel'
import type { ResultErrorCode } from '@dsh/kernel'
import { modeAbove, requiredModeOf } from '../required-mode.js'
import type { Execution, PreToolDecision, ToolDefinition } from '../types.js'
import type { Admitted, Call, PipelineEnv } from './state.js'

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = () => ALLOW
const ADMITTED: Admitted = Object.freeze({ kind: 'admitted' })

/** What a listener settled with: a decision, or a failure (a throw, or something that is not a decision). */
type Seen = PreToolDecision | { readonly kind: 'failed'; readonly reason: string }

function checkDecision(value: unknown): Seen {
  const d = value as PreToolDecision
  if (!d || typeof d !== 'object') return { kind: 'failed', reason: `a tools/pre-execute listener returned ${JSON.stringify(value) ?? String(value)}, not a decision` }
  if (d.kind === 'allow') return d
  if (d.kind === 'deny') return { kind: 'deny', reason: typeof d.reason === 'string' && d.reason ? d.reason : 'denied by a tools/pre-execute listener' }
  if (d.kind === 'ask') {
    const ask: PreToolDecision = { kind: 'ask', reason: typeof d.reason === 'string' ? d.reason : undefined }
    if (d.sandboxMode !== undefined) ask.sandboxMode = d.sandboxMode
    return ask
  }
  return { kind: 'failed', reason: `a tools/pre-execute listener returned an unknown decision kind ${JSON.stringify((d as any).kind)}` }
}

const RANK = { allow: 0, ask: 1, deny: 2, failed: 3 } as const

function refused(call: Call, code: ResultErrorCode, message: string): Admitted {
  return { kind: 'refused', result: errorResult(call.callId, call.name, code, message) }
}

/**
 * Decisions are monotone: a listener that called `next()` and got a deny (or
 * an ask, or a failure) back cannot return anything weaker. The strictest
 * decision any listener settled with wins; a listener that answers without
 * calling `next()` decides for the listeners after it, which never ran.
 */
export async function preExecute(env: PipelineEnv, call: Call, exec: Execution, def?: ToolDefinition): Promise<Admitted> {
  let strictest: Seen = ALLOW
  /** the listener whose decision stands (its index in the gate set), and what it returned */
  let decidedBy = -1
  let decidedWith: unknown
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
    await compose(call.gates.pre, undefined, exec, allow, undefined, observe, started)
  } catch {
    // already observed as a failure
  }
  // a listener that returned without waiting for next() does not outrun an inner deny
  const running = started.settled()
  if (running) await running
  const decision = strictest as Seen
  switch (decision.kind) {
    case 'allow': return ADMITTED
    case 'failed':
    case 'deny': return refused(call, 'DENIED', decision.reason)
    case 'ask': return ask(env, call, exec, decision.reason, decision.sandboxMode, def, decidedBy)
  }
}

/**
 * The mode an approval would grant: the one the ask names, else the mode the
 * tool needs when that is above the mode the call would run under — so the
 * approver is shown what allowing lets the call do, and an approval can take
 * effect (an approved write under read-only is not left to fail).
 */
function escalation(env: PipelineEnv, call: Call, exec: Execution, asked: SandboxMode | undefined, def: ToolDefinition | undefined): SandboxMode | undefined | { problem: string } {
  if (asked) return asked
  if (!def || def.requiredMode === undefined) return undefined
  const required = requiredModeOf(def, exec.arguments)
  if ('problem' in required) return required
  const sandbox = env.sandbox()
  if (!required.mode || !sandbox) return undefined
  return modeAbove(required.mode, sandbox.resolveMode(call.session)) ? required.mode : undefined
}

/** Who asked, for a refusal the model and its user can act on: the plugin owning the listener. */
function asker(env: PipelineEnv, call: Call, index: number): string {
  const fn = call.gates.pre[index]
  const hook = fn && env.lists.pre.hooks().find((h) => unwrapListener(h.callback) === fn)
  return hook ? `plugin ${ownerName(hook.ctx as Context)}` : 'a tools/pre-execute listener'
}

async function ask(env: PipelineEnv, call: Call, exec: Execution, reason: string | undefined, askedMode: SandboxMode | undefined, def: ToolDefinition | undefined, askedBy: number): Promise<Admitted> {
  const asked = () => `${asker(env, call, askedBy)} asked${reason ? `: ${reason}` : ''}`
  const approval = env.approval()
  if (!approval) return refused(call, 'APPROVAL_UNAVAILABLE', `approval required (${asked()}) but no approval service is running`)
  try {
    const sandboxMode = escalation(env, call, exec, askedMode, def)
    if (typeof sandboxMode === 'object') return refused(call, 'DENIED', sandboxMode.problem)
    const outcome = await approval.request(sandboxMode ? { exec, reason, sandboxMode } : { exec, reason })
    if (outcome?.kind === 'approved') return outcome.sandboxMode ? { kind: 'admitted', approvedSandboxMode: outcome.sandboxMode } : ADMITTED
    if (outcome?.kind === 'denied') return refused(call, 'DENIED', `approval denied: ${outcome.reason}`)
    const why = outcome?.kind === 'unavailable' ? outcome.reason : 'the approval service gave no outcome'
    return refused(call, 'APPROVAL_UNAVAILABLE', `approval unavailable (${asked()}): ${why}`)
  } catch (error) {
    return refused(call, 'APPROVAL_UNAVAILABLE', `approval failed: ${describeError(error)}`)
  }
}
