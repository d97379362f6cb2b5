/**
 * Running one hook command: `sh -c <command>` in the workspace, in its own
 * process group, with the input JSON on a real pipe, a deadline, an output cap
 * and the call's cancellation.
 *
 * Why a launcher: Node gives a child's stdin as one end of a socketpair, and on
 * Linux `/dev/stdin` cannot be opened on a socket (ENXIO) — a hook doing
 * `jq … < /dev/stdin` then reads nothing and allows. So bash starts first,
 * turns its stdin into a pipe with a process substitution (`cat` copying our
 * socket into it), checks it is a pipe, and `exec`s `/bin/sh -c <command>`: the
 * hook keeps bash's pid, so its exit status and any killing signal reach us
 * unchanged. The command travels as an argument, never spliced into a script.
 *
 * A deadline, an abort or too much output kills the whole process group; the
 * output pipes are then given a short grace and destroyed, so a descendant that
 * escaped the group (`setsid`) and holds them open cannot hang the call.
 */
import { accessSync, constants } from 'node:fs'
import { execa } from 'execa'
import { PIPE_GRACE_MS } from './limits.js'

export interface LaunchOptions {
  command: string
  /** the JSON written to the hook's stdin */
  input: string
  cwd: string
  /** added to the kernel's own environment */
  env: Record<string, string>
  timeoutMs: number
  maxOutputBytes: number
  signal?: AbortSignal
}

export type LaunchFailure = 'spawn' | 'launcher' | 'timeout' | 'aborted' | 'output-too-large'

export interface LaunchOutcome {
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  stdoutBytes: number
  stderrBytes: number
  durationMs: number
  /** set when the hook gave no usable run */
  failure?: LaunchFailure
  failureMessage?: string
}

/** Marks a launcher failure on stderr (exit 125 with this prefix). */
export const LAUNCHER_MARK = 'dsh-hook-launcher:'

const SCRIPT = [
  `exec 0< <(exec "$3" 2>/dev/null) && [ -p /dev/stdin ] || { echo "${LAUNCHER_MARK} cannot give the hook a pipe as stdin" >&2; exit 125; }`,
  'exec "$1" -c "$2"',
].join('\n')

function firstExecutable(candidates: readonly string[]): string | undefined {
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {}
  }
}

export interface Launcher {
  run(options: LaunchOptions): Promise<LaunchOutcome>
  /** kill every hook still running (plugin disposal) */
  killAll(): void
}

/** Resolve the launcher's programs once, to absolute paths (never looked up on PATH per call). */
export function createLauncher(): Launcher {
  const bash = firstExecutable(['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash', '/opt/homebrew/bin/bash'])
  const sh = firstExecutable(['/bin/sh', '/usr/bin/sh'])
  const cat = firstExecutable(['/bin/cat', '/usr/bin/cat'])
  // running hooks: how to stop each one
  const live = new Set<(why: LaunchFailure, message: string) => void>()
  const missing = !bash ? 'bash' : !sh ? 'sh' : !cat ? 'cat' : undefined
  return {
    run(options) {
      if (missing) return Promise.resolve(notStarted(`cannot start hooks: no ${missing} found in the usual absolute locations`))
      return launch(bash!, sh!, cat!, options, live)
    },
    killAll() {
      for (const stop of [...live]) stop('aborted', 'the plugin was disposed while the hook ran')
    },
  }
}

function notStarted(message: string): LaunchOutcome {
  return { exitCode: null, signal: null, stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0, durationMs: 0, failure: 'spawn', failureMessage: message }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {}
}

async function launch(bash: string, sh: string, cat: string, options: LaunchOptions, live: Set<(why: LaunchFailure, message: string) => void>): Promise<LaunchOutcome> {
  const started = performance.now()
  if (options.signal?.aborted) return { ...notStarted('the call was aborted before the hook started'), failure: 'aborted' }
  const child = execa(bash, ['-c', SCRIPT, 'dsh-hook', sh, options.command, cat], {
    cwd: options.cwd,
    env: options.env,
    extendEnv: true,
    // its own process group, so a deadline kills every process the hook started
    detached: true,
    buffer: false,
    reject: false,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const out: Buffer[] = []
  const err: Buffer[] = []
  let outBytes = 0
  let errBytes = 0
  let failure: LaunchFailure | undefined
  let failureMessage: string | undefined
  let exit: { code: number | null; signal: string | null } | undefined
  let graceTimer: NodeJS.Timeout | undefined
  const pid = child.pid

  const stop = (why: LaunchFailure, message: string) => {
    if (!failure) {
      failure = why
      failureMessage = message
    }
    if (pid !== undefined) killGroup(pid)
    if (!graceTimer) {
      graceTimer = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
      }, PIPE_GRACE_MS)
    }
  }
  const collect = (chunks: Buffer[], which: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const total = (which === 'stdout' ? (outBytes += chunk.length) : (errBytes += chunk.length))
    if (total > options.maxOutputBytes) {
      stop('output-too-large', `the hook printed more than ${options.maxOutputBytes} bytes on ${which}`)
      return
    }
    chunks.push(chunk)
  }
  child.stdout?.on('data', collect(out, 'stdout'))
  child.stderr?.on('data', collect(err, 'stderr'))
  child.stdin?.on('error', () => {
    // the hook may exit without reading its input: EPIPE is its choice, not an error
  })
  child.on('exit', (code, signal) => {
    exit = { code, signal }
  })
  const seconds = options.timeoutMs / 1000
  const deadline = setTimeout(() => stop('timeout', `the hook did not finish within its ${seconds} s timeout`), options.timeoutMs)
  const onAbort = () => stop('aborted', 'the call was aborted while the hook ran')
  options.signal?.addEventListener('abort', onAbort, { once: true })
  live.add(stop)
  child.stdin?.end(options.input)

  let spawnError: unknown
  try {
    const result = await child
    if (result.failed && exit === undefined && !failure) spawnError = result.cause ?? result.message
  } catch (error) {
    if (exit === undefined && !failure) spawnError = error
  } finally {
    clearTimeout(deadline)
    if (graceTimer) clearTimeout(graceTimer)
    options.signal?.removeEventListener('abort', onAbort)
    live.delete(stop)
  }

  const outcome: LaunchOutcome = {
    exitCode: exit?.code ?? null,
    signal: exit?.signal ?? null,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    stdoutBytes: outBytes,
    stderrBytes: errBytes,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  }
  if (failure) return { ...outcome, failure, failureMessage }
  if (spawnError !== undefined || exit === undefined) {
    const message = spawnError instanceof Error ? spawnError.message : String(spawnError ?? 'the hook never started')
    return { ...outcome, failure: 'spawn', failureMessage: `the hook could not start: ${message}` }
  }
  if (outcome.exitCode === 125 && outcome.stderr.startsWith(LAUNCHER_MARK)) {
    return { ...outcome, failure: 'launcher', failureMessage: outcome.stderr.trim() }
  }
  return outcome
}
