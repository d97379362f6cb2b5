/** Telling a person's edit from a call's for `dsh mcp --watch`, since a reload runs what a call left in the config or a plugin's code (docs/decisions/2026-12-02-reload-during-calls.md). */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'

/** Why a reload was not applied. */
export interface ReloadRefusal {
  /** the watched files that hold what a call left */
  files: string[]
  /** the calls (`<callId> (<tool>)`) in flight while each changed */
  calls: string[]
  message: string
}

export type GuardedReload<T> = { applied: T } | { refused: ReloadRefusal }

// Why: well over a coarse kernel clock's tick (4 ms at HZ=250), which stamps ctime
const RACY_MS = 100n
const NS_PER_MS = 1_000_000n

interface Known {
  sig: string
  digest: string
}

export class ReloadGuard {
  private files: readonly string[] = []
  private inFlight = new Map<string, string>()
  private windowCalls: string[] = []
  private atStart = new Map<string, string>()
  private known = new Map<string, Known>()
  private tainted = new Map<string, { digest: string; calls: string[] }>()
  private holding: Promise<void> | undefined
  private idle: Array<() => void> = []

  /** The files whose change is watched (the config and the plugins' code); taken as they are now. */
  watch(files: readonly string[]): void {
    this.files = [...new Set(files)]
    for (const file of this.files) this.digest(file)
  }

  /** Before a call runs: waits while a reload checks and reads, then opens (or joins) a window. */
  async enter(callId: string, name: string): Promise<void> {
    while (this.holding) await this.holding
    if (!this.inFlight.size) {
      this.windowCalls = []
      this.atStart = new Map(this.files.map((file) => [file, this.digest(file)]))
    }
    this.inFlight.set(callId, name)
    this.windowCalls.push(`${callId} (${name})`)
  }

  /** After a call settled (its sandbox's put-back included): the last one out compares. */
  leave(callId: string): void {
    if (!this.inFlight.delete(callId) || this.inFlight.size) return
    for (const [file, before] of this.atStart) {
      const after = this.digest(file)
      if (after !== before) this.tainted.set(file, { digest: after, calls: this.windowCalls })
    }
    this.atStart = new Map()
    for (const wake of this.idle.splice(0)) wake()
  }

  /**
   * Run `reload` once no call is in flight, with new calls held until it
   * settles; refused, without running it, while a watched file holds what a
   * call left.
   */
  async reload<T>(reload: () => Promise<T>): Promise<GuardedReload<T>> {
    for (;;) {
      while (this.holding) await this.holding
      if (!this.inFlight.size) break
      await new Promise<void>((resolve) => this.idle.push(resolve))
    }
    let release!: () => void
    this.holding = new Promise<void>((resolve) => (release = resolve))
    try {
      const refused = this.refusal()
      if (refused) return { refused }
      return { applied: await reload() }
    } finally {
      this.holding = undefined
      release()
    }
  }

  /** The tainted files that still hold what the call left; the others were changed since, with no call in flight. */
  private refusal(): ReloadRefusal | undefined {
    const files: string[] = []
    const calls = new Set<string>()
    for (const [file, taint] of this.tainted) {
      if (!this.files.includes(file) || this.digest(file) !== taint.digest) {
        this.tainted.delete(file)
        continue
      }
      files.push(file)
      for (const call of taint.calls) calls.add(call)
    }
    if (!files.length) return undefined
    const list = [...calls]
    const message = `${files.join(', ')} changed while ${list.length === 1 ? 'a call was' : 'calls were'} running (${list.join(', ')}), so the change may be the call's and is not applied; the previous plugin set stays. If the change is yours, save the file again while no call runs, or restart dsh mcp`
    return { files, calls: list, message }
  }

  /** The content's digest, `absent`, or `unreadable:<code>`; kept while the stat signature says the file is unchanged. */
  private digest(file: string): string {
    let st
    try {
      st = statSync(file, { bigint: true, throwIfNoEntry: false })
    } catch (error) {
      return `unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}`
    }
    if (!st) {
      this.known.delete(file)
      return 'absent'
    }
    const sig = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
    const kept = this.known.get(file)
    if (kept?.sig === sig) return kept.digest
    let digest: string
    try {
      digest = createHash('sha256').update(readFileSync(file)).digest('hex')
    } catch (error) {
      return `unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}`
    }
    // Why not kept when recent: a write within the clock's tick could leave the same signature
    const now = BigInt(Date.now()) * NS_PER_MS
    if (now - st.ctimeNs > RACY_MS * NS_PER_MS) this.known.set(file, { sig, digest })
    else this.known.delete(file)
    return digest
  }
}
