/**
 * The `sandbox` service's config: its schema (the keys docs/configuration.md lists), and the
 * check that turns a given config into the service's defaults, naming the key of a bad value.
 */
import type { LookupFunction } from 'node:net'
import { isAbsolute, resolve } from 'node:path'
import Schema from 'schemastery'
import { describeError, KernelError, rejectUnknownKeys } from '@dsh/kernel'
import { DEFAULT_LIMITS, LIMIT_NAMES, resolveLimits, type ResolvedLimits, type SandboxLimits } from './policy/limits.js'
import { checkProtectedPaths, DEFAULT_PROTECTED_PATHS, type GitProtection } from './protected/names.js'
import { resolveNetwork, type NetworkPolicy } from './network/policy.js'
import { checkReadPaths, DEFAULT_READ_DENY } from './policy/read.js'
import { LOCAL_BACKENDS, type LocalBackend } from './providers/local.js'
import { SANDBOX_MODES, type SandboxMode } from './types.js'

export interface SandboxConfig {
  /** the default mode (default `read-only`) */
  mode?: SandboxMode
  /** the default workspace (default the current directory) */
  workspace?: string
  /** the default network policy (default `off`): `off`, `on`, or `{ allow, deny? }` host patterns reached through the proxy */
  network?: NetworkPolicy
  /** how the network proxy resolves names (programmatic only; default node's dns.lookup) */
  lookup?: LookupFunction
  /** where a policy may make anything writable (default: the workspace) */
  allowedRoots?: string[]
  /** which local backends to try, in order (default: the platform's chain) */
  backends?: LocalBackend[]
  /** resource limits of every confined command, unless its policy sets them (default DEFAULT_LIMITS) */
  limits?: SandboxLimits
  /** paths no confined command (nor the file tools) may read, unless its policy sets them (default DEFAULT_READ_DENY) */
  readDeny?: string[]
  /** paths inside denied ones that stay readable, unless a policy sets them (default none) */
  readAllow?: string[]
  /** relative paths kept read-only in every writable root besides the core ones, unless a policy sets them (default DEFAULT_PROTECTED_PATHS) */
  protectedPaths?: string[]
  /** `.git` read-only as a whole (default), or writable but for its hooks, config and the like (`commit`) */
  git?: GitProtection
  /**
   * Sandboxes built ahead, one per view, each waiting for its command (default on, idle ones
   * killed after `idleMs`, default 300000); `false`: every command starts its own launcher
   */
  pool?: boolean | { idleMs?: number }
}

/** A pooled slot waits this long unused before it is killed. */
export const DEFAULT_POOL_IDLE_MS = 300_000

/**
 * The config's schema. Not the class's static `Config`: cordis would apply it
 * before the constructor, and schemastery turns an absent array into `[]`,
 * which here means "nothing" (no allowed root, no backend), not "the default".
 */
const PoolSchema = Schema.object({ idleMs: Schema.natural() })

export const SandboxConfig: Schema<SandboxConfig> = Schema.object({
  mode: Schema.union([...SANDBOX_MODES] as SandboxMode[]),
  workspace: Schema.string(),
  network: Schema.union([Schema.const('off'), Schema.const('on'), Schema.object({ allow: Schema.array(Schema.string()).required(), deny: Schema.array(Schema.string()) })]) as Schema<NetworkPolicy>,
  lookup: Schema.function() as unknown as Schema<LookupFunction>,
  allowedRoots: Schema.array(Schema.string()),
  backends: Schema.array(Schema.union(LOCAL_BACKENDS as LocalBackend[])),
  limits: Schema.object(Object.fromEntries(LIMIT_NAMES.map((name) => [name, Schema.natural()])) as Record<keyof SandboxLimits, Schema<number>>),
  readDeny: Schema.array(Schema.string()),
  readAllow: Schema.array(Schema.string()),
  protectedPaths: Schema.array(Schema.string()),
  git: Schema.union(['read-only', 'commit'] as const),
  pool: Schema.union([Schema.boolean(), PoolSchema]) as Schema<SandboxConfig['pool']>,
})

export type Defaults = Required<Omit<SandboxConfig, 'backends' | 'limits' | 'lookup' | 'readDeny' | 'readAllow' | 'protectedPaths' | 'pool'>> & {
  /** false: no pool */
  pool: false | { readonly idleMs: number }
  limits: ResolvedLimits
  readDeny: readonly string[]
  readAllow: readonly string[]
  protectedPaths: readonly string[]
}

/** The config checked (INVALID_CONFIG naming the key otherwise) and its defaults filled in. */
export function checkConfig(config: SandboxConfig): Defaults {
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw new KernelError('INVALID_CONFIG', 'sandbox config must be an object')
  rejectUnknownKeys(SandboxConfig, config, 'sandbox')
  try {
    SandboxConfig(config)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `sandbox config: ${describeError(error)}`, { cause: error })
  }
  const checked = config
  try {
    resolveNetwork(checked.network, 'sandbox config', 'sandbox.network')
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', describeError(error), { cause: error, details: { path: (error as KernelError).details?.field ?? 'sandbox.network' } })
  }
  const workspace = resolve(checked.workspace ?? process.cwd())
  const allowedRoots = (checked.allowedRoots ?? [workspace]).map((root, i) => {
    if (!isAbsolute(root)) throw new KernelError('INVALID_CONFIG', `sandbox.allowedRoots[${i}] must be an absolute path (got ${JSON.stringify(root)})`)
    return resolve(root)
  })
  let limits
  try {
    limits = resolveLimits(checked.limits, DEFAULT_LIMITS, 'sandbox.limits')
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', describeError(error).replace(/^sandbox policy: /, 'sandbox config: '), { cause: error, details: { path: (error as KernelError).details?.field ?? 'sandbox.limits' } })
  }
  for (const field of ['readDeny', 'readAllow'] as const) {
    try {
      // Why here: a bad entry is the config's error, named by its key, not every call's
      checkReadPaths(`sandbox.${field}`, checked[field] ?? [])
    } catch (error) {
      throw new KernelError('INVALID_CONFIG', describeError(error).replace(/^sandbox policy: /, 'sandbox config: '), { cause: error, details: { path: (error as KernelError).details?.field ?? `sandbox.${field}` } })
    }
  }
  let protectedPaths: readonly string[] = DEFAULT_PROTECTED_PATHS
  try {
    if (checked.protectedPaths !== undefined) protectedPaths = Object.freeze(checkProtectedPaths('sandbox.protectedPaths', checked.protectedPaths))
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', describeError(error).replace(/^sandbox policy: /, 'sandbox config: '), { cause: error, details: { path: (error as KernelError).details?.field ?? 'sandbox.protectedPaths' } })
  }
  if (typeof checked.pool === 'object' && checked.pool !== null) rejectUnknownKeys(PoolSchema, checked.pool, 'sandbox.pool')
  const pool = checked.pool === false ? false as const : Object.freeze({ idleMs: (typeof checked.pool === 'object' ? checked.pool.idleMs : undefined) ?? DEFAULT_POOL_IDLE_MS })
  const readDeny = Object.freeze([...(checked.readDeny ?? DEFAULT_READ_DENY)])
  const readAllow = Object.freeze([...(checked.readAllow ?? [])])
  return Object.freeze({ mode: checked.mode ?? 'read-only', workspace, network: checked.network ?? 'off', allowedRoots: Object.freeze(allowedRoots) as string[], limits, readDeny, readAllow, protectedPaths, git: checked.git ?? 'read-only', pool })
}
