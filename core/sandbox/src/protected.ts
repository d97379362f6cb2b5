/**
 * Protected paths: entries at the top of every writable root that a
 * confined command must not change, because something outside the sandbox
 * later runs what they say (git hooks and config, agent settings, MCP
 * servers), and what they lead to inside the roots (a protected symlink's
 * target, the git directory a `.git` file points to). Backends make the
 * existing ones read-only where they can; a protected path that did not
 * exist before a call cannot be made uncreatable by a bind mount without
 * leaving a placeholder in the user's workspace, so it is removed when the
 * call ends — once the last overlapping call has ended (ledger.ts).
 */
import { lstatSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { isInside } from './policy.js'
import { linkedTargets } from './protected-targets.js'

export const PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.dsh', '.claude', '.codex', '.mcp.json'])

export type EntryKind = 'absent' | 'directory' | 'file' | 'symlink'

export interface ProtectedEntry {
  readonly path: string
  readonly kind: EntryKind
  /** the link text of a symlink */
  readonly target?: string
}

export function kindOf(path: string): { kind: EntryKind; target?: string } {
  try {
    const st = lstatSync(path)
    if (st.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) }
    return { kind: st.isDirectory() ? 'directory' : 'file' }
  } catch {
    return { kind: 'absent' }
  }
}

/**
 * Every protected path of `roots`: each protected name at the top of each
 * root, then what those lead to inside the roots. A target that is a
 * writable root itself cannot be made read-only without making the whole
 * root read-only: that policy is refused.
 */
export function protectedPathsOf(roots: readonly string[]): string[] {
  const paths: string[] = []
  for (const root of roots) for (const name of PROTECTED_NAMES) paths.push(join(root, name))
  for (const path of [...paths]) {
    for (const target of linkedTargets(path, roots)) {
      const root = roots.find((r) => r === target)
      if (root) {
        throw new KernelError('INVALID_POLICY', `sandbox policy: the protected path ${path} leads to the writable root ${root}, which cannot stay read-only while it is writable; remove or retarget ${path}`, { details: { field: 'writableRoots', path } })
      }
      if (!paths.includes(target)) paths.push(target)
    }
  }
  return paths
}

/** What each protected path of `roots` is, now. */
export function snapshotProtected(roots: readonly string[]): ProtectedEntry[] {
  return protectedPathsOf(roots).map((path) => Object.freeze({ path, ...kindOf(path) }))
}

/** Undo what a finished call did to one protected entry; true when something changed. */
export function restoreEntry(entry: ProtectedEntry): boolean {
  const now = kindOf(entry.path)
  if (entry.kind === 'absent' && now.kind !== 'absent') {
    rmSync(entry.path, { recursive: true, force: true })
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

/** The protected path a real path is, or lies beneath, within one of `roots`. */
export function protectedEntryOf(roots: readonly string[], realPath: string): string | undefined {
  for (const root of roots) {
    if (realPath === root || !isInside(root, realPath)) continue
    const rel = relative(root, realPath)
    const first = rel.split(sep)[0]
    // Why case-insensitive: on macOS and Windows `.GIT` opens `.git`
    const name = process.platform === 'linux' ? first : first.toLowerCase()
    if (PROTECTED_NAMES.includes(name)) return join(root, first)
  }
  // Why also the targets: writing `decoy/config.toml` is writing `.codex/config.toml` when `.codex -> decoy`
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) {
      const target = linkedTargets(join(root, name), roots).find((t) => isInside(t, realPath))
      if (target) return target
    }
  }
  return undefined
}
