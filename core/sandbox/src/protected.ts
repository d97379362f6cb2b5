/**
 * Protected paths: entries at the top of every writable root that a
 * confined command must not change, because something outside the sandbox
 * later runs what they say (git hooks and config, agent settings, MCP
 * servers). Backends make the existing ones read-only where they can; a
 * protected path that did not exist before a call cannot be made
 * uncreatable by a bind mount without leaving a placeholder in the user's
 * workspace, so it is removed when the call ends.
 */
import { lstatSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { isInside } from './policy.js'

export const PROTECTED_NAMES: readonly string[] = Object.freeze(['.git', '.dsh', '.claude', '.codex', '.mcp.json'])

export type EntryKind = 'absent' | 'directory' | 'file' | 'symlink'

export interface ProtectedEntry {
  readonly path: string
  readonly kind: EntryKind
  /** the link text of a symlink */
  readonly target?: string
}

function kindOf(path: string): { kind: EntryKind; target?: string } {
  try {
    const st = lstatSync(path)
    if (st.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) }
    return { kind: st.isDirectory() ? 'directory' : 'file' }
  } catch {
    return { kind: 'absent' }
  }
}

/** What each protected name is, now, in every root. */
export function snapshotProtected(roots: readonly string[]): ProtectedEntry[] {
  const entries: ProtectedEntry[] = []
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) {
      const path = join(root, name)
      entries.push(Object.freeze({ path, ...kindOf(path) }))
    }
  }
  return entries
}

/**
 * Undo what a finished call did to protected entries it could reach: remove
 * one it created, put back a symlink it replaced. Never follows a link (rmSync
 * removes the link, not its target). Returns the paths it changed.
 */
export function restoreProtected(before: readonly ProtectedEntry[]): string[] {
  const changed: string[] = []
  for (const entry of before) {
    const now = kindOf(entry.path)
    if (entry.kind === 'absent' && now.kind !== 'absent') {
      rmSync(entry.path, { recursive: true, force: true })
      changed.push(entry.path)
    } else if (entry.kind === 'symlink' && (now.kind !== 'symlink' || now.target !== entry.target)) {
      rmSync(entry.path, { recursive: true, force: true })
      symlinkSync(entry.target!, entry.path)
      changed.push(entry.path)
    }
  }
  return changed
}

/** The protected entry a real path is, or lies beneath, within one of `roots`. */
export function protectedEntryOf(roots: readonly string[], realPath: string): string | undefined {
  for (const root of roots) {
    if (realPath === root || !isInside(root, realPath)) continue
    const rel = relative(root, realPath)
    const first = rel.split(sep)[0]
    // Why case-insensitive: on macOS and Windows `.GIT` opens `.git`
    const name = process.platform === 'linux' ? first : first.toLowerCase()
    if (PROTECTED_NAMES.includes(name)) return join(root, first)
  }
  return undefined
}
