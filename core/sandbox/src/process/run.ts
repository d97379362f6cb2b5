/**
 * The one runner for a process the kernel must be able to stop: bash's
 * (confined) command and a hook's shell alike. It starts `argv` in its own
 * process group with the given environment, stdin and capped output; a
 * deadline, the caller's abort, too much output (when asked) or `stop()`
 * ends it: SIGTERM to everything of the run, SIGKILL after a grace, and the
 * output pipes destroyed a little later (a process that escaped every kill
 * and holds them open cannot hang the caller). The outcome says why it
 * ended, as a tagged termination; timers are cleared in `finally`.
 */
import { randomUUID } from 'node:crypto'
import { spawn } from 'node:child_process'
import { OutputCapture } from './capture.js'
import { killRun } from './kill.js'
import { PROCESS_TAG_VARIABLE } from './tree.js'
import type { SlotRequest } from './slots.js'

export type Termination =
  | { reason: 'deadline'; limitMs: number }
  | { reason: 'aborted' }
  | { reason: 'output-limit'; stream: 'stdout' | 'stderr'; limitBytes: number }
  | { reason: 'stopped'; message: string }

export interface ProcessOptions {
  argv: readonly string[]
  cwd: string
  env: Readonly<Record<string, string>>
  /** add `env` to the kernel's own environment instead of replacing it */
  extendEnv?: boolean
  /** written to a pipe on stdin; without it stdin is /dev/null */
  input?: string
  timeoutMs?: number
  signal?: AbortSignal
  /** bytes kept per stream */
  maxOutputBytes: number
  /** past the cap: keep counting (`truncate`, the default) or end the run (`kill`) */
  overflow?: 'truncate' | 'kill'
  /** from SIGTERM to SIGKILL */
  killGraceMs: number
  /** from SIGKILL to destroying the output pipes */
  pipeGraceMs: number
  /** after a normal exit, kill whatever the run left behind (nothing else will) */
  reapOnExit?: boolean
  /**
   * `Confined.slot`: take the sandbox built ahead for this view instead of spawning `argv`
   * (which must be that Confined's); without stdin only (`input` unset), else `argv` is spawned
   */
  slot?: SlotRequest
}

export interface ProcessOutcome {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: OutputCapture
  stderr: OutputCapture
  durationMs: number
  /** why the runner ended it, when it did */
  termination?: Termination
  /** set when the process never ran */
  spawnError?: string
}

export interface RunningProcess {
  readonly stdout: OutputCapture
  readonly stderr: OutputCapture
  /** End the run; the first reason given is the one reported. */
  stop(termination: Termination): void
  readonly done: Promise<ProcessOutcome>
}

/** What the caller and the run share: why it ends, and how to end it once it runs. */
interface Control {
  termination?: Termination
  /** set while the process runs */
  kill?: () => void
}

export function startProcess(options: ProcessOptions): RunningProcess {
  const stdout = new OutputCapture(options.maxOutputBytes)
  const stderr = new OutputCapture(options.maxOutputBytes)
  const control: Control = {}
  const stop = (why: Termination) => {
    control.termination ??= why
    control.kill?.()
  }
  return { stdout, stderr, stop, done: run(options, stdout, stderr, control, stop) }
}

async function run(options: ProcessOptions, stdout: OutputCapture, stderr: OutputCapture, control: Control, stop: (why: Termination) => void): Promise<ProcessOutcome> {
  const started = performance.now()
  const outcome = (fields: Partial<ProcessOutcome>): ProcessOutcome => ({
    exitCode: null, signal: null, stdout, stderr, durationMs: Math.round((performance.now() - started) * 1000) / 1000, termination: control.termination, ...fields,
  })
  const { signal } = options
  // Why before the first await: an abort before the process starts must still end the run
  const onAbort = () => stop({ reason: 'aborted' })
  if (signal?.aborted) onAbort()
  else signal?.addEventListener('abort', onAbort, { once: true })
  try {
    return await spawnAndWait(options, stdout, stderr, control, stop, outcome)
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

async function spawnAndWait(options: ProcessOptions, stdout: OutputCapture, stderr: OutputCapture, control: Control, stop: (why: Termination) => void, outcome: (fields: Partial<ProcessOutcome>) => ProcessOutcome): Promise<ProcessOutcome> {
  if (control.termination) return outcome({ spawnError: 'the run was ended before it started' })
  const base = { ...(options.extendEnv ? process.env as Record<string, string> : {}), ...options.env }
  // Why only then: a slot's stdin is /dev/null, and its environment is exactly the one it was built with
  // Why it may throw: a slot of this view that died is SANDBOX_UNAVAILABLE, never a spawn of something else
  const taken = options.input === undefined ? options.slot?.take(options.cwd, base) : undefined
  const tag = taken?.tag ?? randomUUID()
  let failure: string | undefined
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  const child = taken?.child ?? spawn(options.argv[0], options.argv.slice(1), {
    cwd: options.cwd,
    env: { ...base, [PROCESS_TAG_VARIABLE]: tag },
    // its own process group, so one signal reaches every process that stayed in it
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  const pid = child.pid
  // 'close' comes once the process has exited and its output pipes are closed (or destroyed below)
  const closed = new Promise<void>((resolve) => {
    child.on('close', () => resolve())
    child.on('error', (error) => {
      // a spawn that failed has no pid and never closes; any later error is not the run's end
      if (child.pid !== undefined) return
      failure = error.message
      resolve()
    })
  })
  child.on('exit', (code, sig) => {
    exit = { code, signal: sig }
  })
  let force: NodeJS.Timeout | undefined
  let pipes: NodeJS.Timeout | undefined
  let forced = false
  control.kill = () => {
    if (force) return
    killRun(pid, tag, 'SIGTERM')
    force = setTimeout(() => {
      forced = true
      killRun(pid, tag, 'SIGKILL')
      pipes = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
      }, options.pipeGraceMs)
    }, options.killGraceMs)
  }
  const overflow = options.overflow === 'kill'
  stdout.attach(child.stdout, overflow ? () => stop({ reason: 'output-limit', stream: 'stdout', limitBytes: options.maxOutputBytes }) : undefined)
  stderr.attach(child.stderr, overflow ? () => stop({ reason: 'output-limit', stream: 'stderr', limitBytes: options.maxOutputBytes }) : undefined)
  // the process may exit without reading its input: EPIPE is its choice, not an error
  child.stdin?.on('error', () => {})
  const limitMs = options.timeoutMs
  const deadline = limitMs === undefined ? undefined : setTimeout(() => stop({ reason: 'deadline', limitMs }), limitMs)
  if (options.input !== undefined) child.stdin?.end(options.input)
  if (control.termination) control.kill()

  try {
    await closed
  } finally {
    clearTimeout(deadline)
    clearTimeout(force)
    clearTimeout(pipes)
    // its pid may be reused from now on: nothing signals it any more
    control.kill = undefined
    // Why: a process that outlived SIGTERM before the grace ran out, or one left behind by a normal exit
    if ((control.termination && !forced) || options.reapOnExit) killRun(pid, tag, 'SIGKILL')
  }
  if (control.termination && exit === undefined) failure = undefined
  if (failure !== undefined || (exit === undefined && !control.termination)) return outcome({ spawnError: failure ?? 'the process never started' })
  return outcome({ exitCode: exit?.code ?? null, signal: exit?.signal ?? null })
}
