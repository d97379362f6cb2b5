/**
 * Resource limits of a confined command (DESIGN §15.5): defaults, checking,
 * the launcher's `--limit` flags, and what cannot bind. The launcher sets
 * them as rlimits in the command's process before exec, soft and hard
 * alike, so the command (which has no capabilities) can only lower them.
 * See docs/decisions/2026-12-01-resource-limits.md.
 */
import { KernelError } from '@dsh/kernel'

export interface SandboxLimits {
  /** processes and threads of the command's uid (RLIMIT_NPROC) */
  processes?: number
  /** address space of each process, in bytes (RLIMIT_AS) */
  memoryBytes?: number
  /** the largest file a process may write, in bytes (RLIMIT_FSIZE) */
  fileSizeBytes?: number
  /** CPU time of each process, in seconds (RLIMIT_CPU) */
  cpuSeconds?: number
  /** open file descriptors of each process (RLIMIT_NOFILE) */
  openFiles?: number
}

export type ResolvedLimits = Readonly<Required<SandboxLimits>>

const GiB = 1024 ** 3

/** Generous enough for builds and test suites; tight enough to stop a runaway loop. */
export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  processes: 1024,
  // Why 16 GiB of address space, not less: V8, the JVM and WebAssembly reserve far more than they use
  memoryBytes: 16 * GiB,
  fileSizeBytes: 16 * GiB,
  cpuSeconds: 3600,
  openFiles: 4096,
})

const FLAGS: Record<keyof SandboxLimits, string> = {
  processes: 'nproc', memoryBytes: 'as', fileSizeBytes: 'fsize', cpuSeconds: 'cpu', openFiles: 'nofile',
}

export const LIMIT_NAMES = Object.freeze(Object.keys(FLAGS) as (keyof SandboxLimits)[])

/** Check `limits` (at `field`) and fill in `defaults`; an INVALID_POLICY error names the bad key. */
export function resolveLimits(limits: unknown, defaults: ResolvedLimits = DEFAULT_LIMITS, field = 'limits'): ResolvedLimits {
  if (limits === undefined) return defaults
  if (!limits || typeof limits !== 'object' || Array.isArray(limits)) throw bad(field, 'must be an object', limits)
  const out: Record<string, number> = { ...defaults }
  for (const [key, value] of Object.entries(limits)) {
    if (!Object.hasOwn(FLAGS, key)) throw bad(`${field}.${key}`, `is not a limit (${LIMIT_NAMES.join(', ')})`)
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw bad(`${field}.${key}`, 'must be a positive integer', value)
    out[key] = value
  }
  return Object.freeze(out) as ResolvedLimits
}

function bad(field: string, message: string, value?: unknown): KernelError {
  const shown = value === undefined ? '' : ` (got ${JSON.stringify(value) ?? typeof value})`
  return new KernelError('INVALID_POLICY', `sandbox policy: ${field} ${message}${shown}`, { details: { field } })
}

/** `--limit NAME=N` for each limit, as landlock-run takes them. */
export function launcherLimitArgs(limits: ResolvedLimits): string[] {
  return LIMIT_NAMES.flatMap((name) => ['--limit', `${FLAGS[name]}=${limits[name]}`])
}

/**
 * The limits that do not bind, as `unenforced` ids. RLIMIT_NPROC is never
 * checked for the host's root user (uid 0 outside any user namespace, which
 * a bwrap user namespace run by root still maps to), so as root the process
 * count is not limited.
 */
export function limitsUnenforced(uid: number = process.getuid?.() ?? 0): string[] {
  return uid === 0 ? ['limits.processes'] : []
}
