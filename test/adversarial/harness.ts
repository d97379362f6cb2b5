// Shared pieces of the sandbox attack suites: a real SandboxService limited
// to one backend, a runner for confined argv, temp dirs inside and outside
// the writable roots, and the perl programs the network attacks use.
import { spawn, type StdioOptions } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest'
import { sandboxEnv, type SandboxService, type Confined, type LocalBackend, type SandboxConfig, type SandboxMode, type NetworkPolicy } from '@dsh/sandbox'
import { onBackend, sandboxServices } from '../sandbox-services.js'

const temps: string[] = []

/**
 * How runConfined starts a command: `one-shot` spawns the confined argv; `slot` runs it in a
 * sandbox built for its view (`landlock-run --slot`, the pool's path) whenever its Confined has a
 * slot, and fails the test when the slot is not taken. A spec file picks one before its suites.
 */
let startPath: 'one-shot' | 'slot' = 'one-shot'

export function runThroughSlots(): void {
  startPath = 'slot'
}

/** `` or ` (through slots)`: the describe titles say which path ran. */
export function pathTitle(): string {
  return startPath === 'slot' ? ' (through slots)' : ''
}

/**
 * Whether the backend builds a mount namespace (bwrap, and the launcher's own
 * namespaces): there the host is read-only and protected entries are bound
 * read-only, where plain Landlock can only report what it cannot enforce.
 */
export function mountNamespace(backend: LocalBackend): boolean {
  return backend !== 'landlock'
}

/** A fresh directory under `base` (the OS temp dir unless given), removed by `cleanTemps`. */
export function tmp(prefix: string, base = os.tmpdir()): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, `dsh-adv-${prefix}-`)))
  temps.push(dir)
  return dir
}

export function cleanTemps(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

/** Outside every writable root, yet readable on both backends (/var/tmp is not /tmp). */
export function outsideDir(): string {
  return tmp('outside', fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir())
}

export interface Sandbox {
  ctx: Context
  service: SandboxService
  confine(argv: string[], workspace: string, mode?: SandboxMode, network?: NetworkPolicy): Promise<Confined>
  stop(): Promise<void>
}

/** A started service whose only local backend is `backend`; every temp dir may be made writable. */
export async function startSandbox(backend: LocalBackend): Promise<Sandbox> {
  const services = sandboxServices(onBackend(backend))
  const { ctx, sandbox: service } = await services.start()
  return {
    ctx,
    service,
    confine: (argv, workspace, mode = 'workspace-write', network = 'off') => service.confine(argv, { mode, workspace, network }),
    stop: () => services.stopAll(),
  }
}

/**
 * A describe block run on one real backend (skipped with a printed reason when the
 * machine lacks it), with a started sandbox that `body` reads through `sb()` and
 * the temp dirs removed after each test.
 */
export function describeOnBackend(backend: LocalBackend, title: string, skip: boolean, body: (sb: () => Sandbox) => void): void {
  describe.skipIf(skip)(`${title}${pathTitle()}`, () => {
    let sb: Sandbox | undefined
    beforeAll(async () => {
      sb = await startSandbox(backend)
    })
    afterAll(async () => {
      await sb?.stop()
    })
    afterEach(() => cleanTemps())
    body(() => {
      if (!sb) throw new Error(`the ${backend} sandbox did not start`)
      return sb
    })
  })
}

/**
 * Inside a describe block on `backend`: `start(config)` starts a service with only that backend
 * (every temp dir may be made writable), stopped after the block with the temp dirs; `sandbox()`
 * is one started with no more before the block; `sh` runs a script under workspace-write in `ws`
 * as bash does, on that backend, then ends the lease (`restored`: what was put back).
 */
export function scriptsOnBackend(backend: LocalBackend) {
  const services = sandboxServices(onBackend(backend))
  const start = async (config: SandboxConfig = {}) => (await services.start(config)).sandbox
  let started: SandboxService | undefined
  beforeAll(async () => {
    started = await start()
  })
  afterAll(async () => {
    await services.stopAll()
    cleanTemps()
  })
  const sandbox = () => {
    if (!started) throw new Error(`the ${backend} sandbox did not start`)
    return started
  }
  const sh = async (service: SandboxService, ws: string, script: string) => {
    const confined = await service.confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws })
    expect(confined.backend).toBe(backend)
    const run = await runConfined(confined, ws)
    return { ...run, confined, restored: confined.cleanup() }
  }
  return { start, sandbox, sh }
}

export interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Spawn a confined argv the way the bash tool does: fixed env, own process group; through its slot on the `slot` path. */
export function runConfined(confined: Confined, cwd: string, opts: { stdio?: StdioOptions; timeoutMs?: number } = {}): Promise<Run> {
  const env = { ...sandboxEnv(cwd), ...confined.spawnEnv }
  let child
  // Why: a call the pool would serve (no proxy credential) that has no slot would pass here one-shot, untested
  if (startPath === 'slot' && !confined.slot && !opts.stdio && !Object.keys(confined.spawnEnv).length) throw new Error(`no slot for a ${confined.backend} call on the slot path`)
  if (startPath === 'slot' && confined.slot && !opts.stdio) {
    // built now and taken at once: the command waits on fd 3 until its sandbox is ready
    confined.slot.prepare(cwd, env)
    const taken = confined.slot.take(cwd, env)
    if (!taken) throw new Error('the slot built for this call was not taken')
    child = taken.child
  } else {
    child = spawn(confined.argv[0], confined.argv.slice(1), { cwd, env, stdio: opts.stdio ?? ['ignore', 'pipe', 'pipe'], detached: true })
  }
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d: Buffer) => (stdout += d))
  child.stderr?.on('data', (d: Buffer) => (stderr += d))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL')
    }, opts.timeoutMs ?? 15_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export { pidAlive } from '../processes.js'

/** The state letter of /proc/PID/stat and its TracerPid. */
export function procState(pid: number): { state: string; tracer: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  const tracer = Number(/TracerPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? -1)
  return { state: stat.slice(stat.lastIndexOf(')') + 2)[0], tracer }
}

/** Every file under `dir` with its content (directories end with /), to compare before and after. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (e.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(p)}`
      else if (e.isDirectory()) {
        out[`${rel}/`] = ''
        walk(p)
      } else out[rel] = fs.readFileSync(p, 'utf8')
    }
  }
  walk(dir)
  return out
}

// one perl script for every socket attack: prints "ok" or the errno name
export const NET_PROBE = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/net-probe.pl'), 'utf8')

// runs argv on a new pseudo-terminal that is its controlling terminal, and prints what it wrote
export const PTY_RUN = path.join(import.meta.dirname, '../fixtures/pty-run.py')
// inside the sandbox: the controlling terminal in /proc/self/stat, then TIOCSTI on stdin (the terminal)
export const TIOCSTI_PROBE = String.raw`
import errno, fcntl, termios
print('tty_nr=' + open('/proc/self/stat').read().rsplit(')', 1)[1].split()[4])
try:
    fcntl.ioctl(0, termios.TIOCSTI, b'#')
    print('TIOCSTI=ok')
except OSError as e:
    print('TIOCSTI=' + errno.errorcode[e.errno])
`
