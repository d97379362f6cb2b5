/** Per-session runs of identical calls, kept by the Session in a WeakMap and dropped when it closes, so reloads and sessions leave nothing behind (its README). */
import { jsonEqual, type Session } from '@dsh/kernel'

interface Run {
  name: string
  args: unknown
  count: number
  off: () => void
}

export class Streaks {
  private runs = new WeakMap<Session, Run>()
  /** runs whose session is still open: their close listeners are removed on dispose */
  private live = new Set<Run>()

  /** Count one call; returns the length of the run it belongs to. */
  count(session: Session, name: string, args: unknown): number {
    const run = this.runs.get(session)
    if (!run) {
      this.start(session, name, args)
      return 1
    }
    if (run.name === name && jsonEqual(run.args, args)) return ++run.count
    run.name = name
    run.args = args
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

  private start(session: Session, name: string, args: unknown): void {
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
