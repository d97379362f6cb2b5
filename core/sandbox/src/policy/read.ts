/**
 * The read policy (DESIGN §15.5): paths a confined command — and the
 * in-process tools — may not read (`readDeny`), with exceptions inside them
 * (`readAllow`). The default denies the usual credential stores. Reading
 * the workspace stays free: a denied path that is, or contains, the
 * workspace or a writable root is dropped. `~/` means the home directory of
 * the user running dsh (the command's own HOME is the workspace); a relative
 * path is the workspace's (`./secrets`, `.env`).
 */
import { lstatSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve, sep } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { realOrPlanned } from '../protected/targets.js'

export const DEFAULT_READ_DENY: readonly string[] = Object.freeze([
  '~/.ssh', '~/.aws', '~/.gnupg', '~/.config/gh', '~/.config/gcloud', '~/.azure', '~/.kube',
  '~/.docker/config.json', '~/.netrc', '~/.git-credentials', '/etc/shadow', '/etc/gshadow',
])

export interface ReadPolicy {
  /** real paths hidden from the command */
  readonly readDeny: readonly string[]
  /** real paths inside a denied one that stay readable */
  readonly readAllow: readonly string[]
  /** an exact test of a real path besides the list (a restriction's patterns): what denies it, or undefined */
  readonly readDenied?: (realPath: string) => string | undefined
}

/**
 * Check a list of read-policy paths and make them absolute: `~/` from the home directory, a
 * relative path (`./secrets`, `.env`) from `workspace` (checked only, when there is none yet: a
 * config's list is resolved per policy). A trailing `/**` names the directory itself (everything in
 * it is hidden with it); any other `*` or `?` is refused, since the backends hide paths, not
 * patterns. Throws INVALID_POLICY naming `field[i]`.
 */
export function checkReadPaths(field: string, value: unknown, workspace?: string): string[] {
  if (!Array.isArray(value)) throw bad(field, 'must be an array of paths', value)
  return value.map((item, i) => {
    if (typeof item !== 'string' || item === '' || item.includes('\0')) throw bad(`${field}[${i}]`, 'must be a non-empty path without NUL', item)
    let path = item === '~' ? homedir() : item.startsWith('~/') ? join(homedir(), item.slice(2)) : item
    if (path.endsWith('/**')) path = path.slice(0, -3) || '/'
    if (/[*?]/.test(path)) {
      throw bad(`${field}[${i}]`, 'is a pattern; it takes paths (a trailing /** is the directory with everything in it). For a pattern, write a Read(...) deny rule (claude-code-permissions), which is expanded to the matching paths at each call', item)
    }
    if (isAbsolute(path)) return path
    const rel = path.startsWith('./') ? path.slice(2) : path
    // Why: a relative entry speaks of the workspace; one that climbs out of it would mean a different path in each workspace
    if (rel.split('/').includes('..')) throw bad(`${field}[${i}]`, 'must be absolute, start with ~/, or be relative to the workspace without ".." parts', item)
    return resolve(workspace ?? sep, rel)
  })
}

function paths(field: string, value: unknown, workspace: string | undefined, seen: Map<string, string | null>): string[] {
  return checkReadPaths(field, value, workspace).map((path) => realOrPlanned(path, seen))
}

function bad(field: string, message: string, value: unknown): KernelError {
  return new KernelError('INVALID_POLICY', `sandbox policy: ${field} ${message} (got ${JSON.stringify(value) ?? typeof value})`, { details: { field } })
}

/**
 * Check and resolve `readDeny`/`readAllow` for a policy whose free area is
 * `free` (workspace, writable roots); an absent list takes `defaults`.
 */
export function resolveReadPolicy(readDeny: unknown, readAllow: unknown, free: readonly string[], defaults: { readDeny: readonly string[]; readAllow: readonly string[] } = { readDeny: DEFAULT_READ_DENY, readAllow: [] }): ReadPolicy {
  // relative entries are the workspace's, which is free[0]
  // the lists share ancestors (`~`): each is looked at once in this resolution
  const seen = new Map<string, string | null>()
  const deny = paths('readDeny', readDeny ?? defaults.readDeny, free[0], seen)
  const allow = paths('readAllow', readAllow ?? defaults.readAllow, free[0], seen)
  // Why drop them: hiding the workspace (or a directory holding it) would hide what the command works on
  const kept = [...new Set(deny)].filter((d) => !free.some((root) => isInside(d, root)))
  return Object.freeze({ readDeny: Object.freeze(kept), readAllow: Object.freeze([...new Set(allow)]) })
}

/**
 * The denied path `realPath` lies in, unless an allowed path inside that denied one holds it
 * (each denied path is asked: `~/.ssh/public/key` stays denied under `~/.ssh` + `readAllow`
 * `~/.ssh/public` when it is denied itself); then what the exact test (`readDenied`, a rule)
 * answers, unless an allowed path holds it.
 */
export function deniedBy(policy: ReadPolicy, realPath: string): string | undefined {
  for (const deny of policy.readDeny) {
    if (isInside(deny, realPath) && !policy.readAllow.some((a) => isInside(a, realPath) && isInside(deny, a))) return deny
  }
  const rule = policy.readDenied?.(realPath)
  return rule && !policy.readAllow.some((a) => isInside(a, realPath)) ? rule : undefined
}

/** The denied paths that exist now (what a command is kept from reading). */
export function hiddenPaths(policy: ReadPolicy): string[] {
  return policy.readDeny.filter((path) => {
    try {
      // Why throwIfNoEntry: most denied paths do not exist, and an exception per path was most of confine()'s time
      return lstatSync(path, { throwIfNoEntry: false }) !== undefined
    } catch {
      return false
    }
  })
}

/** How many entries beneath the denied paths `linkedToDenied` looks at before it gives up (and refuses). */
export const LINK_SCAN_LIMIT = 4096

/**
 * Whether a file with more than one hard link (`dev`/`ino` from its stat) is
 * also a file beneath a denied path: a hard link made before the call from
 * the workspace to a secret would otherwise let the in-process tools read
 * it. Returns the denied path it is found under; `overflow` when it cannot
 * tell — the denied paths hold more than LINK_SCAN_LIMIT entries, or one
 * cannot be listed (fail closed: the caller refuses); undefined when it is
 * none of them. Allowed paths are skipped.
 */
export function linkedToDenied(policy: ReadPolicy, dev: number, ino: number): string | 'overflow' | undefined {
  let seen = 0
  const visit = (path: string): 'match' | 'overflow' | undefined => {
    if (++seen > LINK_SCAN_LIMIT) return 'overflow'
    if (policy.readAllow.includes(path)) return undefined
    let st
    try {
      st = lstatSync(path)
    } catch {
      return undefined
    }
    if (st.isFile()) return st.dev === dev && st.ino === ino ? 'match' : undefined
    if (!st.isDirectory()) return undefined
    let names: string[]
    try {
      names = readdirSync(path)
    } catch {
      return 'overflow' // a denied directory it cannot list may hold the file: unsure, so refused
    }
    for (const name of names) {
      const found = visit(join(path, name))
      if (found) return found
    }
    return undefined
  }
  for (const denied of policy.readDeny) {
    const found = visit(denied)
    if (found === 'overflow') return found
    if (found) return denied
  }
  return undefined
}
