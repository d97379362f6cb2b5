/**
 * Requests that were asked and not decided. While this process waits for an
 * answer a request is `pending`; one whose `approval/asked` is in the log
 * without a decision and that nobody here is waiting for was cut short by a
 * crash: it is `interrupted`, and nothing was approved for it.
 */
import type { Session, SessionEvent, SessionEvents } from '@dsh/kernel'
import './events.js'

/** What `approval/asked` said of the request, and where it stands. */
export interface PendingApproval extends Pick<SessionEvents['approval/asked'], 'id' | 'callId' | 'name' | 'arguments' | 'reason' | 'sandboxMode'> {
  /** the `seq` of its `approval/asked` event */
  askedSeq: number
  state: 'pending' | 'interrupted'
}

export function undecided(session: Session, live: ReadonlySet<string>): PendingApproval[] {
  const open = new Map<string, SessionEvent<'approval/asked'>>()
  for (const event of session.events()) {
    if (event.type === 'approval/asked') {
      const asked = event as SessionEvent<'approval/asked'>
      if (typeof asked.data?.id === 'string') open.set(asked.data.id, asked)
    } else if (event.type === 'approval/decided' || event.type === 'approval/interrupted') {
      const id = (event.data as { id?: unknown })?.id
      if (typeof id === 'string') open.delete(id)
    }
  }
  return [...open.values()].map(({ seq, data }) => ({
    id: data.id,
    callId: data.callId,
    name: data.name,
    ...(data.arguments !== undefined ? { arguments: data.arguments } : {}),
    ...(data.reason !== undefined ? { reason: data.reason } : {}),
    ...(data.sandboxMode !== undefined ? { sandboxMode: data.sandboxMode } : {}),
    askedSeq: seq,
    state: live.has(data.id) ? 'pending' : 'interrupted',
  }))
}
