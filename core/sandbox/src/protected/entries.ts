/** Protected paths: the entries of a writable root a confined command must not change, since something outside the sandbox later runs what they say (docs/architecture.md, Sandbox). */
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { PROTECTED_NAMES, protectedPrefix } from './names.js'
import { scanProtected } from './scan.js'
import { linkedTargets } from './targets.js'
import { restoreSnapshot, type Snapshot } from './restore.js'


export type EntryKind = 'absent' | 'directory' | 'file' | 'symlink'

export interface ProtectedEntry {
  readonly path: string
  readonly kind: EntryKind
  /** the link text of a symlink */
  readonly target?: string
  /** what it held, for a backend that cannot keep it read-only and puts it back instead (restore.ts) */
  readonly content?: Snapshot
  /** `dev:ino` of a registered directory (protected-registry.ts): another directory at the path is not it */
  readonly identity?: string
}

/** `dev:ino` of what is at `path` (not followed), or undefined. */
export function identityOf(path: string): string | undefined {
  try {
    const st = lstatSync(path)
    return `${st.dev}:${st.ino}`
  } catch {
    return undefined
  }
}

/** A registered directory whose path now holds another directory (its ancestor renamed away, a new one made in its place). */
export function replacedDirectory(entry: ProtectedEntry): boolean {
  return entry.kind === 'directory' && entry.identity !== undefined && kindOf(entry.path).kind === 'directory' && identityOf(entry.path) !== entry.identity
}

export function kindOf(path: string): { kind: EntryKind; target?: string } {
  try {
    // Why throwIfNoEntry: most protected entries are absent, and an exception each is most of a lease's own time
    const st = lstatSync(path, { throwIfNoEntry: false })
    if (!st) return { kind: 'absent' }
    if (st.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) }
    return { kind: st.isDirectory() ? 'directory' : 'file' }
  } catch {
    return { kind: 'absent' }
  }
}

/** The git directories a root's `.git` leads to inside the roots (a `.git` file's gitdir and commondir, a symlink's target). */
function gitBases(root: string, roots: readonly string[]): string[] {
  return linkedTargets(join(root, '.git'), roots)
}

export interface ProtectedPaths {
  readonly paths: readonly string[]
  /** the scan below the top stopped at its bound: deeper entries may be unprotected */
  readonly truncated: boolean
}

/**
 * Every protected path of `roots` for the protected list `names`: each name
 * at the top of each root (existing or not), the existing ones found below
 * it, names inside `.git` (`.git/hooks`) also in the git directory a `.git`
 * file or symlink leads to, then what those lead to inside the roots. A
 * target that is a writable root itself cannot be made read-only without
 * making the whole root read-only: that policy is refused. `registered`:
 * absolute paths inside the roots that are protected besides the names
 * (protected-registry.ts).
 */
export function findProtected(roots: readonly string[], names: readonly string[] = PROTECTED_NAMES, registered: readonly string[] = []): ProtectedPaths {
  const paths: string[] = []
  for (const root of roots) for (const name of names) paths.push(join(root, name))
  // Why with the names: a registered path (the config file in use) is bound, leased and put back as they are
  for (const path of registered) if (!coveredAbsent(path, paths)) paths.push(path)
  const scan = scanProtected(roots, names)
  paths.push(...scan.deep)
  const inGit = names.filter((n) => n.startsWith(`.git${sep}`)).map((n) => n.slice(5))
  if (inGit.length) for (const root of roots) for (const base of gitBases(root, roots)) for (const rest of inGit) paths.push(join(base, rest))
  for (const path of [...paths]) {
    for (const target of linkedTargets(path, roots)) {
      const root = roots.find((r) => r === target)
      if (root) {
        throw new KernelError('INVALID_POLICY', `sandbox policy: the protected path ${path} leads to the writable root ${root}, which cannot stay read-only while it is writable; remove or retarget ${path}`, { details: { field: 'writableRoots', path } })
      }
      if (!paths.includes(target)) paths.push(target)
    }
  }
  return Object.freeze({ paths: Object.freeze([...new Set(paths)]), truncated: scan.truncated })
}

/**
 * A registered path that does not exist inside a protected directory that does (`.claude/settings.local.json`
 * before anyone wrote one): the directory, bound read-only or put back whole, already keeps it from being
 * made; listed on its own it would only be an absent entry the backend reports as unenforced.
 */
function coveredAbsent(path: string, protectedPaths: readonly string[]): boolean {
  if (kindOf(path).kind !== 'absent') return false
  return protectedPaths.some((p) => p !== path && isInside(p, path) && kindOf(p).kind === 'directory')
}

/** The protected paths of `roots` (see findProtected). */
export function protectedPathsOf(roots: readonly string[], names: readonly string[] = PROTECTED_NAMES): string[] {
  return [...findProtected(roots, names).paths]
}

const found = new WeakMap<object, ProtectedPaths>()

/** findProtected for a resolved policy, once per policy object (a call's service and provider share it). */
export function policyProtected(policy: { readonly writableRoots: readonly string[]; readonly protectedPaths: readonly string[]; readonly registeredPaths?: readonly string[] }): ProtectedPaths {
  let result = found.get(policy)
  if (!result) {
    result = findProtected(policy.writableRoots, policy.protectedPaths, policy.registeredPaths)
    found.set(policy, result)
  }
  return result
}

/** What each protected path of `roots` is, now. */
export function snapshotProtected(roots: readonly string[], names: readonly string[] = PROTECTED_NAMES): ProtectedEntry[] {
  return protectedPathsOf(roots, names).map((path) => Object.freeze({ path, ...kindOf(path) }))
}

/** Undo what a finished call did to one protected entry; true when something changed. */
export function restoreEntry(entry: ProtectedEntry): boolean {
  if (entry.content) return restoreSnapshot(entry.path, entry.content)
  if (replacedDirectory(entry)) {
    // Why removed: the bound directory went with its renamed ancestor, and what is at the path now the command made
    rmSync(entry.path, { recursive: true, force: true })
    return true
  }
  const now = kindOf(entry.path)
  if (entry.kind === 'absent' && now.kind !== 'absent') {
    rmSync(entry.path, { recursive: true, force: true })
    return true
  }
  if (entry.kind === 'directory' && now.kind !== 'directory') {
    // Why: a `.git` swapped for a link to a directory the command filled would carry its hooks
    rmSync(entry.path, { recursive: true, force: true })
    mkdirSync(entry.path)
    return true
  }
  if (entry.kind === 'symlink' && (now.kind !== 'symlink' || now.target !== entry.target)) {
    rmSync(entry.path, { recursive: true, force: true })
    symlinkSync(entry.target!, entry.path)
    return true
  }
  return false
}

/**
 * Undo what a finished call did to protected entries it could reach: remove
 * one it created, put back a symlink it replaced. Never follows a link (rmSync
 * removes the link, not its target). Returns the paths it changed.
 */
export function restoreProtected(before: readonly ProtectedEntry[]): string[] {
  return before.filter((entry) => restoreEntry(entry)).map((entry) => entry.path)
}

/**
 * The protected path a real path is, or lies beneath, within one of `roots`
 * (by name, to PROTECTED_DEPTH levels down, or one of the `registered`
 * absolute paths).
 */
export function protectedEntryOf(roots: readonly string[], realPath: string, names: readonly string[] = PROTECTED_NAMES, registered: readonly string[] = []): string | undefined {
  for (const path of registered) if (isInside(path, realPath)) return path
  for (const root of roots) {
    if (realPath === root || !isInside(root, realPath)) continue
    const entry = protectedPrefix(relative(root, realPath), names)
    if (entry) return join(root, entry)
  }
  const inGit = names.filter((n) => n.startsWith(`.git${sep}`)).map((n) => n.slice(5))
  for (const root of roots) {
    // Why the git directories too: with only `.git/hooks` protected, a `.git` file's gitdir holds the hooks git runs
    for (const base of inGit.length ? gitBases(root, roots) : []) {
      const rest = inGit.find((r) => isInside(join(base, r), realPath))
      if (rest) return join(base, rest)
    }
    // Why also the targets: writing `decoy/config.toml` is writing `.codex/config.toml` when `.codex -> decoy`
    for (const name of names) {
      const target = linkedTargets(join(root, name), roots).find((t) => isInside(t, realPath))
      if (target) return target
    }
  }
  for (const path of registered) {
    const target = linkedTargets(path, roots).find((t) => isInside(t, realPath))
    if (target) return target
  }
  return undefined
}
