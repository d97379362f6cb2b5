/**
 * Mode resolution (DESIGN §8): an approved explicit mode, else the session's
 * latest `sandbox/mode` event, else the configured default. The session's
 * events are scanned incrementally, by `seq` (the in-memory list is a window
 * whose positions move; `sandbox/mode` events, durable, are all in it), and
 * only once a durable event came since the last scan (`lastDurableSeq`): the
 * hot path's lines are never parsed for it, so resolving costs nothing per
 * call once the session has been seen.
 */
import { declareDurable, type Session } from '@dsh/kernel'
import { isSandboxMode } from './resolve.js'
import type { SandboxMode } from '../types.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /** the session's mode; `preset` and `policy` when it was set by switching an approval preset */
    'sandbox/mode': { mode: SandboxMode; reason?: string; preset?: string; policy?: 'ask' | 'never' }
  }
}

// a mode switch that is not on disk could be lost by a crash, and the session widen or narrow unseen
declareDurable('sandbox/mode')

interface Seen {
  /** the `seq` of the newest event scanned */
  seq: number
  /** the latest mode event's mode; `read-only` for one that is not a mode */
  mode?: SandboxMode
  /** the approval policy of the latest preset switch */
  policy?: 'ask' | 'never'
}

export class ModeTracker {
  private seen = new WeakMap<Session, Seen>()

  /** The mode the session's events set last, if any. */
  sessionMode(session: Session): SandboxMode | undefined {
    return this.scan(session).mode
  }

  /** The approval policy the session's latest preset switch set, if any. */
  sessionPolicy(session: Session): 'ask' | 'never' | undefined {
    return this.scan(session).policy
  }

  private scan(session: Session): Seen {
    let seen = this.seen.get(session)
    if (!seen) this.seen.set(session, (seen = { seq: 0 }))
    // Why it may skip: a sandbox/mode event is durable, and no durable event came after what was scanned
    else if (session.lastDurableSeq <= seen.seq) return seen
    const events = session.events()
    // back from the newest to the first event not scanned yet
    let from = events.length
    while (from > 0 && events[from - 1].seq > seen.seq) from--
    for (; from < events.length; from++) {
      const event = events[from]
      seen.seq = event.seq
      if (event.type !== 'sandbox/mode') continue
      const data = event.data as { mode?: unknown; policy?: unknown } | null
      // Why read-only: an event we cannot read must not widen what runs (fail closed)
      seen.mode = isSandboxMode(data?.mode) ? data.mode : 'read-only'
      if (data?.policy === 'ask' || data?.policy === 'never') seen.policy = data.policy
    }
    return seen
  }
}
