/**
 * Reading a listener's answer. Anything that is not exactly an outcome is
 * malformed and ends `unavailable`: a listener cannot approve by accident, and
 * cannot approve more than was asked (another sandbox mode, say).
 */
import { describeError, snapshot } from '@dsh/kernel'
import type { ApprovalOutcome } from '@dsh/tools'
import type { SandboxMode } from '@dsh/kernel'

export type CheckedAnswer = { ok: true; outcome: ApprovalOutcome } | { ok: false; problem: string }

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined)

export function checkAnswer(answer: unknown, asked: SandboxMode | undefined): CheckedAnswer {
  let copy: Record<string, unknown>
  try {
    // one plain copy: a getter must not answer one thing when checked and another when used
    copy = snapshot(answer) as Record<string, unknown>
  } catch (error) {
    return { ok: false, problem: `the answer is not a plain outcome (${describeError(error)})` }
  }
  if (!copy || typeof copy !== 'object' || Array.isArray(copy)) {
    return { ok: false, problem: `the answer ${JSON.stringify(copy)} is not an outcome object` }
  }
  switch (copy.kind) {
    case 'approved': {
      if (copy.grant !== 'once' && copy.grant !== 'session') {
        return { ok: false, problem: `an approval must say grant "once" or "session", got ${JSON.stringify(copy.grant)}` }
      }
      // the approval is of the request as asked: a different mode is a different request
      if (copy.sandboxMode !== undefined && copy.sandboxMode !== asked) {
        return { ok: false, problem: `an approval cannot change the sandbox mode (asked ${JSON.stringify(asked ?? null)}, answered ${JSON.stringify(copy.sandboxMode)})` }
      }
      return { ok: true, outcome: asked ? { kind: 'approved', grant: copy.grant, sandboxMode: asked } : { kind: 'approved', grant: copy.grant } }
    }
    case 'denied':
      return { ok: true, outcome: { kind: 'denied', reason: text(copy.reason) ?? 'denied by an approval/request listener' } }
    case 'unavailable':
      return { ok: true, outcome: { kind: 'unavailable', reason: text(copy.reason) ?? 'an approval/request listener could not answer' } }
    default:
      return { ok: false, problem: `unknown outcome kind ${JSON.stringify(copy.kind)}` }
  }
}
