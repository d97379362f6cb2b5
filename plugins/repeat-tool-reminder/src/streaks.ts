/**
 * Per-session runs of identical calls. A run is the tool name and the
 * canonical JSON of its arguments (keys sorted, so `{a, b}` equals `{b, a}`);
 * a call that differs in either starts a new run of 1.
 *
 * State lives in a WeakMap keyed by the Session object, so one session never
 * sees another's run and a dropped session takes its state with it. It is also
 * dropped eagerly when the session closes, and `dispose()` removes the close
 * listeners this tracker added, so plugin reloads leave nothing on a session.
 */
import { createHash } from 'node:crypto'
import { canonicalJson, type Session } from '@dsh/kernel'

interface Run {
  name: string
  args: string
  count: number
  off: () => void
}

// long arguments are remembered by digest: a run's state stays small whatever the call carried
const MAX_KEPT = 256

function argumentKey(args: unknown): string {
  const json = canonicalJson(args)
  return json.length <= MAX_KEPT ? json : `sha256:${createHash('sha256').update(json).digest('base64')}`
}

export class Streaks {
  private runs = new WeakMap<Session, Run>()
  /** runs whose session is still open: their close listeners are removed on dispose */
  private live = new Set<Run>()

  /** Count one call; returns the length of the run it belongs to. */
  count(session: Session, name: string, args: unknown): number {
    const key = argumentKey(args)
    const run = this.runs.get(session)
    if (!run) {
      this.start(session, name, key)
      return 1
    }
    if (run.name === name && run.args === key) return ++run.count
    run.name = name
    run.args = key
    run.count = 1
    return 1
  }

  /** Sessions with a run (open ones only). */
  get size(): number {
    return this.live.size
  }

  dispose(): void {
    for (const run of this.live) run.off()
    this.live.clear()
  }

  private start(session: Session, name: string, args: string): void {
    const run: Run = { name, args, count: 1, off: () => {} }
    this.runs.set(session, run)
    this.live.add(run)
    const off = session.onClose(() => {
      this.runs.delete(session)
      this.live.delete(run)
    })
    run.off = () => {
      off()
      this.runs.delete(session)
    }
  }
}
