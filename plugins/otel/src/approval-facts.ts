/**
 * What the approval service logged about one call: the `approval/asked` and
 * `approval/decided` session events with the call's id. Read only for calls
 * whose gate 1 asked (a human-scale wait; the service reads the same list to
 * find the session's policy on every request).
 */
import type { Session, SessionEvent } from '@dsh/kernel'
import type { DecidedBy } from '@dsh/approval'
import type { ToolResult } from '@dsh/tools'

export interface ApprovalFacts {
  outcome: 'approved' | 'denied' | 'unavailable'
  /** what decided (`listener`, `grant`, `policy`, `timeout`, …), when the decision is in the log */
  by?: DecidedBy
  grant?: 'once' | 'session'
  /** ms from `approval/asked` to `approval/decided` */
  waitMs?: number
  /** an explicit sandbox mode the approval carried */
  sandboxMode?: string
}

/** How far back the log is searched for a call's approval (the call's own `tool/call` ends it first). */
const SCAN_LIMIT = 10_000

/** The approval of the call `callId`, from the log; else what its result says of it. */
export function approvalFacts(session: Session, callId: string, result: ToolResult): ApprovalFacts {
  return loggedApproval(session, callId) ?? inferred(result)
}

/**
 * The approval of `callId` as the log has it, or undefined when none was decided (the scan stops
 * at the call's own `tool/call`, a few events back for a call that asked nobody).
 */
export function loggedApproval(session: Session, callId: string): ApprovalFacts | undefined {
  const events = session.events()
  let decided: SessionEvent<'approval/decided'> | undefined
  let asked: SessionEvent<'approval/asked'> | undefined
  for (let i = events.length - 1, seen = 0; i >= 0 && seen < SCAN_LIMIT; i--, seen++) {
    const event = events[i]
    const data = event.data as { callId?: unknown; id?: unknown }
    if (!decided) {
      if (event.type === 'approval/decided' && data.callId === callId) decided = event as SessionEvent<'approval/decided'>
      else if (event.type === 'tool/call' && data.callId === callId) break
    } else if (event.type === 'approval/asked' && data.id === decided.data.id) {
      asked = event as SessionEvent<'approval/asked'>
      break
    }
  }
  if (!decided) return undefined
  const outcome = decided.data.outcome
  const facts: ApprovalFacts = { outcome: outcome.kind, by: decided.data.by }
  if (outcome.kind === 'approved') {
    facts.grant = outcome.grant
    if (outcome.sandboxMode) facts.sandboxMode = outcome.sandboxMode
  }
  if (asked) facts.waitMs = decided.time - asked.time
  return facts
}

/**
 * No decision in the log: there was no approval service, or its log write
 * failed (then it denied). Only an approval lets a call on, and an approval is
 * always logged first, so a refused call was refused by the approval.
 */
function inferred(result: ToolResult): ApprovalFacts {
  const code = result.error?.code
  if (code === 'APPROVAL_UNAVAILABLE') return { outcome: 'unavailable' }
  if (code === 'DENIED') return { outcome: 'denied' }
  return { outcome: 'approved' }
}
