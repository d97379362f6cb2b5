/** Running one hook command through a bash launcher, since a socket on stdin breaks `< /dev/stdin` hooks (docs/decisions/2026-11-30-hooks-claude-code.md, The launcher). */
import { accessSync, constants } from 'node:fs'
import { startProcess, type ProcessOutcome, type RunningProcess, type Termination } from '@dsh/sandbox'
import { KILL_GRACE_MS, PIPE_GRACE_MS } from './limits.js'

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
  // running hooks, to stop at disposal
  const live = new Set<RunningProcess>()
  const missing = !bash ? 'bash' : !sh ? 'sh' : !cat ? 'cat' : undefined
  return {
    run(options) {
      if (missing) return Promise.resolve(notStarted(`cannot start hooks: no ${missing} found in the usual absolute locations`))
      return launch(bash!, sh!, cat!, options, live)
    },
    killAll() {
      for (const proc of [...live]) proc.stop({ reason: 'stopped', message: 'the plugin was disposed while the hook ran' })
    },
  }
}

function notStarted(message: string): LaunchOutcome {
  return { exitCode: null, signal: null, stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0, durationMs: 0, failure: 'spawn', failureMessage: message }
}

function failureOf(termination: Termination, options: LaunchOptions): { failure: LaunchFailure; failureMessage: string } {
  switch (termination.reason) {
    case 'deadline':
      return { failure: 'timeout', failureMessage: `the hook did not finish within its ${options.timeoutMs / 1000} s timeout` }
    case 'aborted':
      return { failure: 'aborted', failureMessage: 'the call was aborted while the hook ran' }
    case 'output-limit':
      return { failure: 'output-too-large', failureMessage: `the hook printed more than ${termination.limitBytes} bytes on ${termination.stream}` }
    case 'stopped':
      return { failure: 'aborted', failureMessage: termination.message }
  }
}

async function launch(bash: string, sh: string, cat: string, options: LaunchOptions, live: Set<RunningProcess>): Promise<LaunchOutcome> {
  if (options.signal?.aborted) return { ...notStarted('the call was aborted before the hook started'), failure: 'aborted' }
  const proc = startProcess({
    argv: [bash, '--norc', '-c', SCRIPT, 'dsh-hook', sh, options.command, cat],
    cwd: options.cwd,
    env: options.env,
    extendEnv: true,
    input: options.input,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxOutputBytes: options.maxOutputBytes,
    overflow: 'kill',
    killGraceMs: KILL_GRACE_MS,
    pipeGraceMs: PIPE_GRACE_MS,
  })
  live.add(proc)
  let run: ProcessOutcome
  try {
    run = await proc.done
  } finally {
    live.delete(proc)
  }
  const outcome: LaunchOutcome = {
    exitCode: run.exitCode,
    signal: run.signal,
    stdout: run.stdout.keptText(),
    stderr: run.stderr.keptText(),
    stdoutBytes: run.stdout.bytes,
    stderrBytes: run.stderr.bytes,
    durationMs: run.durationMs,
  }
  if (run.termination) return { ...outcome, ...failureOf(run.termination, options) }
  if (run.spawnError !== undefined) return { ...outcome, failure: 'spawn', failureMessage: `the hook could not start: ${run.spawnError}` }
  if (outcome.exitCode === 125 && outcome.stderr.startsWith(LAUNCHER_MARK)) {
    return { ...outcome, failure: 'launcher', failureMessage: outcome.stderr.trim() }
  }
  return outcome
}
