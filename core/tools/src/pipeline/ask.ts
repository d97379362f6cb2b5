/**
 * The one approval a call needs: gate 1's ask and every guard's ask put as one
 * question, after the guards (so nobody is asked about a call a guard
 * refuses). Only `approved` continues; every other outcome — no service, a
 * failure, `denied`, `unavailable` — refuses, attributed to the approval and
 * to whoever asked.
 */
import { describeError, type ResultErrorCode, type SandboxMode } from '@dsh/kernel'
import { describeSource, errorResult } from '../results.js'
import { modeAbove, requiredModeOf } from '../required-mode.js'
import type { ErrorSource, Execution, ToolDefinition } from '../types.js'
import { sourceOf } from './sources.js'
import type { Admitted, Ask, Call, PipelineEnv } from './state.js'

const ADMITTED: Admitted = Object.freeze({ kind: 'admitted' })

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

/** Every reason, in order: gate 1's first, then the guards'. */
function reasonOf(asks: readonly Ask[]): string | undefined {
  if (asks.length === 1) return asks[0].reason
  const reasons = asks.map((a) => a.reason).filter((r): r is string => typeof r === 'string' && r.length > 0)
  return reasons.length ? reasons.join('; ') : undefined
}

/** The approval's source: what it was about (each asker, with its rule, hook or guard), the first asker's plugin. */
function approvalSource(asks: readonly Ask[]): ErrorSource {
  return sourceOf('approval', asks[0].source.plugin, asks.map((a) => describeSource(a.source)).join('; '))
}

export async function askApproval(env: PipelineEnv, call: Call, exec: Execution, asks: readonly Ask[], def: ToolDefinition | undefined): Promise<Admitted> {
  const asked = () => asks.map((a) => `${a.asker} asked${a.reason ? `: ${a.reason}` : ''}`).join('; ')
  const refused = (code: ResultErrorCode, message: string): Admitted =>
    ({ kind: 'refused', result: errorResult(call.callId, call.name, code, message, approvalSource(asks)) })
  const approval = env.approval()
  if (!approval) return refused('APPROVAL_UNAVAILABLE', `approval required (${asked()}) but no approval service is running`)
  try {
    const sandboxMode = escalation(env, call, exec, asks[0].sandboxMode, def)
    if (typeof sandboxMode === 'object') return refused('DENIED', sandboxMode.problem)
    const reason = reasonOf(asks)
    const outcome = await approval.request(sandboxMode ? { exec, reason, sandboxMode } : { exec, reason })
    if (outcome?.kind === 'approved') return outcome.sandboxMode ? { kind: 'admitted', approvedSandboxMode: outcome.sandboxMode } : ADMITTED
    if (outcome?.kind === 'denied') return refused('DENIED', `approval denied: ${outcome.reason}`)
    const why = outcome?.kind === 'unavailable' ? outcome.reason : 'the approval service gave no outcome'
    return refused('APPROVAL_UNAVAILABLE', `approval unavailable (${asked()}): ${why}`)
  } catch (error) {
    return refused('APPROVAL_UNAVAILABLE', `approval failed: ${describeError(error)}`)
  }
}
