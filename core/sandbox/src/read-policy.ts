/**
 * The read policy (DESIGN §15.5): paths a confined command — and the
 * in-process tools — may not read (`readDeny`), with exceptions inside them
 * (`readAllow`). The default denies the usual credential stores. Reading
 * the workspace stays free: a denied path that is, or contains, the
 * workspace or a writable root is dropped. `~/` means the home directory of
 * the user running dsh (the command's own HOME is the workspace).
 */
import { lstatSync, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { isInside } from './policy.js'
import { realOrPlanned } from './protected-targets.js'

export const DEFAULT_READ_DENY: readonly string[] = Object.freeze([
  '~/.ssh', '~/.aws', '~/.gnupg', '~/.config/gh', '~/.config/gcloud', '~/.azure', '~/.kube',
  '~/.docker/config.json', '~/.netrc', '~/.git-credentials', '/etc/shadow', '/etc/gshadow',
])

export interface ReadPolicy {
  /** real paths hidden from the command */
  readonly readDeny: readonly string[]
  /** real paths inside a denied one that stay readable */
  readonly readAllow: readonly string[]
}

/** Check a list of read-policy paths and expand `~/`; throws INVALID_POLICY naming `field[i]`. */
export function checkReadPaths(field: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw bad(field, 'must be an array of paths', value)
  return value.map((item, i) => {
    if (typeof item !== 'string' || item === '' || item.includes('\0')) throw bad(`${field}[${i}]`, 'must be a non-empty path without NUL', item)
    const expanded = item === '~' ? homedir() : item.startsWith('~/') ? join(homedir(), item.slice(2)) : item
    if (!isAbsolute(expanded)) throw bad(`${field}[${i}]`, 'must be absolute or start with ~/', item)
    return expanded
  })
}

function paths(field: string, value: unknown): string[] {
  return checkReadPaths(field, value).map(realOrPlanned)
}

function bad(field: string, message: string, value: unknown): KernelError {
  return new KernelError('INVALID_POLICY', `sandbox policy: ${field} ${message} (got ${JSON.stringify(value) ?? typeof value})`, { details: { field } })
}

/**
 * Check and resolve `readDeny`/`readAllow` for a policy whose free area is
 * `free` (workspace, writable roots); an absent list takes `defaults`.
 */
export function resolveReadPolicy(readDeny: unknown, readAllow: unknown, free: readonly string[], defaults: { readDeny: readonly string[]; readAllow: readonly string[] } = { readDeny: DEFAULT_READ_DENY, readAllow: [] }): ReadPolicy {
  const deny = paths('readDeny', readDeny ?? defaults.readDeny)
  const allow = paths('readAllow', readAllow ?? defaults.readAllow)
  // Why drop them: hiding the workspace (or a directory holding it) would hide what the command works on
  const kept = [...new Set(deny)].filter((d) => !free.some((root) => isInside(d, root)))
  return Object.freeze({ readDeny: Object.freeze(kept), readAllow: Object.freeze([...new Set(allow)]) })
}

/** The denied path `realPath` lies in, unless an allowed path holds it. */
export function deniedBy(policy: ReadPolicy, realPath: string): string | undefined {
  const deny = policy.readDeny.find((d) => isInside(d, realPath))
  if (!deny) return undefined
  return policy.readAllow.some((a) => isInside(a, realPath) && isInside(deny, a)) ? undefined : deny
}

/** The denied paths that exist now (what a command is kept from reading). */
export function hiddenPaths(policy: ReadPolicy): string[] {
  return policy.readDeny.filter((path) => {
    try {
      lstatSync(path)
      return true
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
