/**
 * Checking a policy at the boundary. Every path is resolved to its real
 * path once, here, so no provider ever sees a symlink or a `..` it would
 * have to interpret; every writable root must lie inside what the host
 * allows. Bad input is an `INVALID_POLICY` error naming the field.
 */
import { realpathSync, statSync } from 'node:fs'
import { CREDENTIAL_VARIABLES } from './env.js'
import { isAbsolute } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { DEFAULT_LIMITS, resolveLimits, type ResolvedLimits } from './limits.js'
import { resolveNetwork } from '../network/policy.js'
import { checkProtectedPaths, DEFAULT_PROTECTED_PATHS, protectedList, type GitProtection } from '../protected/names.js'
import { DEFAULT_READ_DENY, resolveReadPolicy } from './read.js'
import { registeredInside } from '../protected/registry.js'
import { SANDBOX_MODES, type ResolvedPolicy, type SandboxMode, type SandboxPolicy } from '../types.js'
import { isInside } from '../paths.js'

function invalid(field: string, message: string, value?: unknown): never {
  const shown = value === undefined ? '' : ` (got ${describe(value)})`
  throw new KernelError('INVALID_POLICY', `sandbox policy: ${field} ${message}${shown}`, { details: { field } })
}

function describe(value: unknown): string {
  try {
    const text = JSON.stringify(value)
    if (text !== undefined) return text.length > 120 ? `${text.slice(0, 117)}...` : text
  } catch {}
  return typeof value
}

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value)
}

/** The real path of an existing absolute directory, or an INVALID_POLICY error for `field`. */
export function realDirectory(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') invalid(field, 'must be a non-empty string', value)
  if (value.includes('\0')) invalid(field, 'must not contain NUL', value)
  if (!isAbsolute(value)) invalid(field, 'must be an absolute path', value)
  let real: string
  try {
    real = realpathSync.native(value)
  } catch (error) {
    invalid(field, `does not exist: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`, value)
  }
  if (!statSync(real).isDirectory()) invalid(field, 'is not a directory', value)
  return real
}

/** argv must be a non-empty array of strings without NUL (what execve can carry). */
export function checkArgv(argv: unknown): readonly string[] {
  if (!Array.isArray(argv)) invalid('argv', 'must be an array of strings', argv)
  if (argv.length === 0) invalid('argv', 'must name a command')
  argv.forEach((arg, i) => {
    if (typeof arg !== 'string') invalid(`argv[${i}]`, 'must be a string', arg)
    if (arg.includes('\0')) invalid(`argv[${i}]`, 'must not contain NUL', arg)
  })
  if (argv[0] === '') invalid('argv[0]', 'must not be empty')
  return Object.freeze([...argv])
}

/** What a policy that leaves a field out takes (the service's config). */
export interface PolicyDefaults {
  limits?: ResolvedLimits
  readDeny?: readonly string[]
  readAllow?: readonly string[]
  /** the extra protected paths of a policy without `protectedPaths` */
  protectedPaths?: readonly string[]
  /** how `.git` is protected */
  git?: GitProtection
  /** absolute paths registered as protected (protected-registry.ts), kept wherever they lie inside a writable root */
  registered?: readonly string[]
  /** who registered a path, for the refusal of one that holds a writable root */
  ownerOf?: (path: string) => string | undefined
}

const KEYS = new Set(['mode', 'workspace', 'writableRoots', 'network', 'limits', 'readDeny', 'readAllow', 'protectedPaths', 'env'])

/**
 * Check a policy and resolve its paths. `allowedRoots` are the real paths
 * the host lets a policy write beneath; in `workspace-write` the workspace
 * and every writable root must be inside one of them.
 */
export function resolvePolicy(policy: unknown, allowedRoots: readonly string[], defaults: PolicyDefaults = {}): ResolvedPolicy {
  if (!policy || typeof policy !== 'object' || Array.isArray(policy)) invalid('policy', 'must be an object', policy)
  for (const key of Object.keys(policy)) if (!KEYS.has(key)) invalid(key, 'is not a policy field')
  const p = policy as SandboxPolicy
  if (!isSandboxMode(p.mode)) invalid('mode', `must be one of ${SANDBOX_MODES.join(', ')}`, p.mode)
  const network = resolveNetwork(p.network)
  const workspace = realDirectory('workspace', p.workspace)
  if (p.writableRoots !== undefined && !Array.isArray(p.writableRoots)) invalid('writableRoots', 'must be an array of paths', p.writableRoots)
  const extra = (p.writableRoots ?? []).map((root, i) => realDirectory(`writableRoots[${i}]`, root))
  let writableRoots: string[] = []
  if (p.mode === 'workspace-write') {
    const roots = [workspace, ...extra]
    roots.forEach((root, i) => {
      // Why: a policy is built from tool arguments and plugin config; only the host decides where writing is possible at all
      if (!allowedRoots.some((allowed) => isInside(allowed, root))) {
        invalid(i === 0 ? 'workspace' : `writableRoots[${i - 1}]`, `is outside the roots the host allows writing to (${allowedRoots.join(', ') || 'none'})`, root)
      }
    })
    writableRoots = [...new Set(roots)]
  }
  const limits = resolveLimits(p.limits, defaults.limits ?? DEFAULT_LIMITS)
  const read = resolveReadPolicy(p.readDeny, p.readAllow, [workspace, ...writableRoots], { readDeny: defaults.readDeny ?? DEFAULT_READ_DENY, readAllow: defaults.readAllow ?? [] })
  const protectedExtra = p.protectedPaths === undefined ? defaults.protectedPaths ?? DEFAULT_PROTECTED_PATHS : checkProtectedPaths('protectedPaths', p.protectedPaths)
  const protectedPaths = Object.freeze(protectedList(protectedExtra, defaults.git ?? 'read-only'))
  // Why no policy field for them: what dsh loads is protected whatever a policy asks
  const registeredPaths = Object.freeze(registeredInside(defaults.registered ?? [], writableRoots, defaults.ownerOf))
  const env = checkPolicyEnv(p.env)
  return Object.freeze({ mode: p.mode, workspace, writableRoots: Object.freeze(writableRoots), network, limits, ...read, protectedPaths, registeredPaths, ...(env ? { env } : {}) })
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** A policy's extra variables: names a shell accepts, string values without NUL, never one the sandbox sets itself. */
function checkPolicyEnv(env: unknown): Readonly<Record<string, string>> | undefined {
  if (env === undefined) return undefined
  if (!env || typeof env !== 'object' || Array.isArray(env)) invalid('env', 'must be an object of variable names to strings', env)
  const checked: Record<string, string> = Object.create(null)
  for (const [name, value] of Object.entries(env)) {
    if (!VARIABLE_NAME.test(name)) invalid(`env.${name}`, 'is not a variable name')
    if (typeof value !== 'string' || value.includes('\0')) invalid(`env.${name}`, 'must be a string without NUL', value)
    // Why: the proxy variables carry the call's credential, set by the sandbox alone
    if (CREDENTIAL_VARIABLES.includes(name)) invalid(`env.${name}`, 'is set by the sandbox itself (the network proxy)')
    checked[name] = value
  }
  return Object.keys(checked).length ? Object.freeze({ ...checked }) : undefined
}
