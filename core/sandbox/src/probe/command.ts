/**
 * Running a probe's command: one short process, its output captured, bounded
 * in time and bytes. node's own `child_process`, not execa: a probe runs
 * when the CLI starts (hooks-claude-code asks the sandbox how it confines at
 * start), and execa with its dependencies is about a hundred modules to load
 * before the first answer. Never throws: a command that cannot start is an
 * outcome with `error` set, which the probe reports as unavailable.
 */
import { spawn } from 'node:child_process'

export interface ProbeCommandOptions {
  /** the whole environment (nothing is inherited) */
  env: Record<string, string>
  cwd?: string
  timeoutMs: number
}

export interface ProbeCommandOutcome {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** why the command did not run to its end: it could not start, or it outlived `timeoutMs` */
  error?: string
}

/** A probe's output is a line or a small JSON document; more is cut (and the probe then fails to parse it). */
const MAX_OUTPUT_BYTES = 64 * 1024

export function runProbeCommand(file: string, args: readonly string[], options: ProbeCommandOptions): Promise<ProbeCommandOutcome> {
  return new Promise((resolve) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let error: string | undefined
    const child = spawn(file, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => {
      error = `timed out after ${options.timeoutMs} ms`
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => {
      if (outBytes < MAX_OUTPUT_BYTES) out.push(chunk)
      outBytes += chunk.length
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (errBytes < MAX_OUTPUT_BYTES) err.push(chunk)
      errBytes += chunk.length
    })
    child.on('error', (cause) => {
      error ??= cause.message
    })
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer)
      const text = (chunks: Buffer[]) => Buffer.concat(chunks).subarray(0, MAX_OUTPUT_BYTES).toString('utf8')
      resolve({ exitCode, signal, stdout: text(out), stderr: text(err), ...(error !== undefined ? { error } : {}) })
    })
  })
}
