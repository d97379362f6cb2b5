/** The directories between a writable root and a nested protected entry checked after a call, since a link a command put in their place would redirect the host and the put-back (docs/decisions/2026-12-02-protected-ancestors.md). */
import { lstatSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { isInside } from '../paths.js'

/** The directories strictly between the deepest root holding `path` and `path`, shallowest first. */
export function ancestorsBelowRoot(path: string, roots: readonly string[]): string[] {
  const root = roots.filter((r) => r !== path && isInside(r, path)).sort((a, b) => b.length - a.length)[0]
  if (!root) return []
  const chain: string[] = []
  for (let dir = dirname(path); dir !== root && isInside(root, dir); dir = dirname(dir)) chain.unshift(dir)
  return chain
}

export interface AncestorCheck {
  /** every directory on the way is a real directory: the entry can be put back by path */
  readonly intact: boolean
  /** the links and files the command left in an ancestor's place, removed */
  readonly removed: readonly string[]
}

/** Check (and clear) the way from the root to `path`; see the file's comment. */
export function clearAncestors(path: string, roots: readonly string[]): AncestorCheck {
  for (const dir of ancestorsBelowRoot(path, roots)) {
    let st
    try {
      st = lstatSync(dir)
    } catch {
      return { intact: false, removed: [] }
    }
    if (st.isDirectory()) continue
    // Why rmSync without recursion: a link is removed as a link, a file as a file; nothing is followed
    rmSync(dir, { force: true })
    return { intact: false, removed: [dir] }
  }
  return { intact: true, removed: [] }
}
