/** Sandboxes built ahead, one waiting launcher per view, since a call's process starts are most of its cost; a view that differs is never used (docs/decisions/2026-12-02-sandbox-slots.md). */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { lstatSync, statSync, type BigIntStats } from 'node:fs'
import type { Writable } from 'node:stream'
import { KernelError } from '@dsh/kernel'
import { killRun } from './kill.js'
import { PROCESS_TAG_VARIABLE } from './tree.js'

/** A slot handed to one call: the launcher's process (stdio pipes its own) and the tag its run is known by. */
export interface TakenSlot {
  readonly child: ChildProcess
  readonly tag: string
}

/**
 * What a confined call carries when its sandbox may come from the pool
 * (`Confined.slot`), for the process runner (`ProcessOptions.slot`).
 */
export interface SlotRequest {
  /**
   * The slot built for this call's view, spawned with `cwd` and `env`, given the command now; undefined
   * when there is none for this key (then spawn `Confined.argv` one-shot; one is built once the call
   * ends). Throws SANDBOX_UNAVAILABLE when the view's slot ended before it was taken.
   */
  take(cwd: string, env: Readonly<Record<string, string>>): TakenSlot | undefined
  /** Build this view's slot now unless one with this key is waiting (the next take gets it once it is ready). */
  prepare(cwd: string, env: Readonly<Record<string, string>>): void
}

/** How much of what a slot wrote before it was taken is kept for the error (a launcher failure is one line). */
const EARLY_OUTPUT_BYTES = 2048

interface Slot {
  readonly key: string
  readonly child: ChildProcess
  readonly tag: string
  /** set once the launcher has ended (or never started) */
  ended?: string
  early: string
  idle?: NodeJS.Timeout
  onEarly: (chunk: Buffer) => void
}

export interface SlotPoolOptions {
  /** how long a slot waits unused before it is killed */
  idleMs: number
  /** lanes held at once; building one more kills the oldest */
  maxLanes?: number
}

export class SlotPool {
  private readonly lanes = new Map<string, Slot>()
  private closed = false

  constructor(private readonly options: SlotPoolOptions) {}

  /**
   * A request for one call: `prefix` is the launcher argv up to and with its final `--`, `command` what follows it.
   * `watched`: more paths whose identity is part of the key (the policy's protected entries, which
   * plain Landlock leaves out of the argv). `refill()` (the call's cleanup) builds the lane's next slot
   * with the cwd and env the call ran with.
   */
  request(lane: string, prefix: readonly string[], command: readonly string[], watched: readonly string[] = []): SlotRequest & { refill(): void } {
    if (prefix[prefix.length - 1] !== '--') throw new Error('a slot prefix ends with the launcher\'s --')
    let ran: { cwd: string; env: Readonly<Record<string, string>> } | undefined
    return {
      take: (cwd, env) => {
        ran = { cwd, env }
        return this.take(lane, viewKey(prefix, cwd, env, watched), command)
      },
      prepare: (cwd, env) => {
        const key = viewKey(prefix, cwd, env, watched)
        if (this.lanes.get(lane)?.key !== key) this.build(lane, key, prefix, cwd, env)
      },
      refill: () => {
        const last = ran
        if (!last || this.closed) return
        // Why later: the call's result goes back first; the launcher's spawn is node's (a fork of this process)
        setImmediate(() => {
          if (!this.closed && !this.lanes.has(lane)) this.build(lane, viewKey(prefix, last.cwd, last.env, watched), prefix, last.cwd, last.env)
        })
      },
    }
  }

  /** The pids of the launchers waiting now, by lane. */
  waiting(): Record<string, number> {
    return Object.fromEntries([...this.lanes].flatMap(([lane, slot]) => (slot.child.pid !== undefined && slot.ended === undefined ? [[lane, slot.child.pid]] : [])))
  }

  /** Kill every slot; none is built after. */
  close(): void {
    this.closed = true
    for (const slot of [...this.lanes.values()]) this.discard(slot)
  }

  private take(lane: string, key: string, command: readonly string[]): TakenSlot | undefined {
    // Why first: a command that cannot be sent leaves the slot as it was
    const payload = encodeCommand(command)
    const slot = this.lanes.get(lane)
    if (!slot) return undefined
    if (slot.key !== key) {
      // Why kill, not keep: a sandbox built for another view is never to be used
      this.discard(slot)
      return undefined
    }
    this.lanes.delete(lane)
    clearTimeout(slot.idle)
    const { child } = slot
    child.stderr?.off('data', slot.onEarly)
    if (slot.ended !== undefined) {
      this.discard(slot)
      const said = slot.early.trim()
      throw new KernelError('SANDBOX_UNAVAILABLE', `the sandbox built ahead for this call ended before it was given the command (${slot.ended})${said ? `: ${said}` : ''}; the next call starts a fresh one`)
    }
    for (const handle of [child, child.stdout, child.stderr] as const) (handle as { ref?: () => void } | null)?.ref?.()
    const fd3 = child.stdio[3] as Writable
    // Why no error of its own: a launcher gone meanwhile ends the run with its own status
    fd3.on('error', () => {})
    fd3.end(payload)
    return { child, tag: slot.tag }
  }

  private build(lane: string, key: string, prefix: readonly string[], cwd: string, env: Readonly<Record<string, string>>): void {
    if (this.closed) return
    const old = this.lanes.get(lane)
    if (old) this.discard(old)
    if (this.lanes.size >= (this.options.maxLanes ?? 8)) this.discard(this.lanes.values().next().value!)
    const tag = randomUUID()
    const argv = [...prefix.slice(0, -1), '--slot', '--']
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: { ...env, [PROCESS_TAG_VARIABLE]: tag },
      // its own process group, as a one-shot run; fd 3 brings the command
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    const slot: Slot = { key, child, tag, early: '', onEarly: (chunk) => {
      if (slot.early.length < EARLY_OUTPUT_BYTES) slot.early += chunk.toString('utf8').slice(0, EARLY_OUTPUT_BYTES - slot.early.length)
    } }
    child.on('exit', (code, signal) => {
      slot.ended ??= signal ? `killed by ${signal}` : `exit ${code}`
    })
    child.on('error', (error) => {
      slot.ended ??= error.message
    })
    child.stderr?.on('data', slot.onEarly)
    // Why: a slot waiting keeps no process alive (a host that never disposes the kernel still exits)
    for (const handle of [child, child.stdout, child.stderr, child.stdio[3]] as const) (handle as { unref?: () => void } | null)?.unref?.()
    slot.idle = setTimeout(() => this.discard(slot), this.options.idleMs)
    slot.idle.unref()
    this.lanes.set(lane, slot)
  }

  private discard(slot: Slot): void {
    for (const [lane, held] of this.lanes) if (held === slot) this.lanes.delete(lane)
    clearTimeout(slot.idle)
    ;(slot.child.stdio[3] as Writable | null)?.destroy()
    if (slot.ended === undefined) killRun(slot.child.pid, slot.tag, 'SIGKILL')
  }
}

/** The command as fd 3 carries it: each argument NUL-terminated (landlock-run's slot.c). */
export function encodeCommand(argv: readonly string[]): Buffer {
  if (!argv.length || !argv[0]) throw new Error('a slot\'s command needs argv[0]')
  if (argv.some((a) => a.includes('\0'))) throw new Error('a slot\'s command cannot hold a NUL byte')
  return Buffer.from(argv.map((a) => `${a}\0`).join(''), 'utf8')
}

/** Everything that made a slot's sandbox, as one string: equal keys, the same view. */
export function viewKey(prefix: readonly string[], cwd: string, env: Readonly<Record<string, string>>, watched: readonly string[] = []): string {
  const paths = new Set([cwd, ...prefix.filter((a) => a.startsWith('/')), ...watched])
  const identities = [...paths].map((path) => `${path}=${identity(path)}`)
  const vars = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`)
  return [prefix.join('\0'), cwd, vars.join('\0'), identities.join('\0')].join('\n')
}

/** device, inode, birth time and type of the entry itself, and of what a symlink leads to */
function identity(path: string): string {
  const own = idOf(statOf(path, lstatSync))
  return own.startsWith('l') ? `${own}>${idOf(statOf(path, statSync))}` : own
}

function statOf(path: string, stat: typeof statSync): BigIntStats | undefined {
  try {
    return stat(path, { bigint: true, throwIfNoEntry: false })
  } catch {
    return undefined // a loop, a file as a directory, an unreadable component: recorded as absent
  }
}

function idOf(st: BigIntStats | undefined): string {
  if (!st) return '-'
  const type = st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o'
  return `${type}${st.dev}:${st.ino}:${st.birthtimeNs}`
}
