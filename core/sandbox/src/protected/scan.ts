/** The protected entries below the top of the writable roots (a nested `.git`, a package's `.envrc`), bounded and kept while the directories it read are unchanged, since each is as dangerous as one at the top (docs/architecture.md, Sandbox). */
import { lstatSync, readdirSync, type Dirent } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { currentStamp, dirStamp } from './dir-stamp.js'
import { PROTECTED_DEPTH } from './names.js'

/** How many directories one scan lists before it stops. */
export const MAX_SCAN_DIRS = 2000

/** Directories never entered: vast, rewritten by package managers, or version control's own. */
const SKIP = new Set(['node_modules', '.git', '.hg', '.svn', '.jj'])

export interface ProtectedScan {
  /** existing protected entries below the top level of the roots (real paths) */
  readonly deep: readonly string[]
  /** the scan stopped at MAX_SCAN_DIRS */
  readonly truncated: boolean
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return [] // unreadable or vanished: nothing in it can be bound anyway
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** Scans kept at once (one per workspace and list, the usual service has a few). */
const MAX_KEPT = 32
const kept = new Map<string, { scan: ProtectedScan; stamps: Map<string, string> }>()

/** The existing protected entries in the directories 1..PROTECTED_DEPTH levels below each root (kept while unchanged). */
export function scanProtected(roots: readonly string[], names: readonly string[]): ProtectedScan {
  const key = JSON.stringify([roots, names])
  const hit = kept.get(key)
  if (hit && [...hit.stamps].every(([dir, stamp]) => currentStamp(dir) === stamp)) return hit.scan
  kept.delete(key)
  const seen: string[] = []
  const scan = scanOnce(roots, names, seen)
  const stamps = new Map<string, string>()
  const now = Date.now()
  for (const dir of seen) {
    if (stamps.has(dir)) continue
    const stamp = dirStamp(dir, now)
    // Why a missing one is no reason to refuse: where no directory was, its parent (stamped) changes when one appears
    if (stamp) stamps.set(dir, stamp)
    else if (currentStamp(dir) !== undefined) return scan // changed just now: used once, not kept
  }
  if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!)
  kept.set(key, { scan, stamps })
  return scan
}

/** One scan; `seen` gets every directory whose listing it depends on. */
function scanOnce(roots: readonly string[], names: readonly string[], seen: string[]): ProtectedScan {
  const single = new Set(names.filter((n) => !n.includes(sep)))
  const nested = names.filter((n) => n.includes(sep))
  const deep: string[] = []
  let listed = 0
  let truncated = false
  for (const root of roots) {
    // breadth first, so a truncated scan has covered the shallowest levels; the root is level 0
    let level: string[] = [root]
    for (let depth = 0; depth <= PROTECTED_DEPTH && level.length; depth++) {
      const next: string[] = []
      for (const dir of level) {
        if (++listed > MAX_SCAN_DIRS) {
          truncated = true
          return Object.freeze({ deep: Object.freeze([...new Set(deep)]), truncated })
        }
        seen.push(dir)
        if (depth > 0) {
          for (const name of nested) {
            // Why each directory on the way: `a/b/c` appears when `a` or `a/b` gains an entry
            for (let up = dirname(join(dir, name)); up !== dir; up = dirname(up)) seen.push(up)
            if (exists(join(dir, name))) deep.push(join(dir, name))
          }
        }
        for (const entry of list(dir)) {
          const path = join(dir, entry.name)
          if (single.has(entry.name)) {
            // Why not entered: a protected directory is protected whole (the top level's are listed by the caller)
            if (depth > 0) deep.push(path)
            continue
          }
          if (depth < PROTECTED_DEPTH && entry.isDirectory() && !SKIP.has(entry.name) && !roots.includes(path)) next.push(path)
        }
      }
      level = next
    }
  }
  return Object.freeze({ deep: Object.freeze([...new Set(deep)]), truncated })
}
