/**
 * Mode resolution (DESIGN §8): an approved explicit mode, else the session's
 * latest `sandbox/mode` event, else the configured default. The session's
 * events are scanned incrementally (the log only grows), so resolving costs
 * nothing per call once the session has been seen.
 */
import type { Session } from '@dsh/kernel'
import { isSandboxMode } from './policy.js'
import type { SandboxMode } from './types.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    // `preset` and `policy` are written by approval.setPreset (declared identically in @dsh/approval)
    'sandbox/mode': { mode: SandboxMode; reason?: string; preset?: string; policy?: 'ask' | 'never' }
  }
}

interface Seen {
  /** how many events were scanned */
  index: number
  /** the latest mode event's mode; `read-only` for one that is not a mode */
  mode?: SandboxMode
}

export class ModeTracker {
  private seen = new WeakMap<Session, Seen>()

  /** The mode the session's events set last, if any. */
  sessionMode(session: Session): SandboxMode | undefined {
    let seen = this.seen.get(session)
    if (!seen) this.seen.set(session, (seen = { index: 0 }))
    const events = session.events()
    // Why from the last index: a reopened session may have recovered fewer events than were seen
    if (seen.index > events.length) seen.index = 0
    for (; seen.index < events.length; seen.index++) {
      const event = events[seen.index]
      if (event.type !== 'sandbox/mode') continue
      const mode = (event.data as { mode?: unknown } | null)?.mode
      // Why read-only: an event we cannot read must not widen what runs (fail closed)
      seen.mode = isSandboxMode(mode) ? mode : 'read-only'
    }
    return seen.mode
  }
}
