/** Read rules carved around each denied path, by real path, since Landlock has no deny rule (docs/architecture.md, Sandbox: the carve). */
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { isInside } from '../paths.js'

export interface CarvedRules {
  /** the launcher's read flags (`--ro PATH` pairs) */
  rules: string[]
  /** denied paths now outside every rule */
  hidden: string[]
}

/** What a carve read from the filesystem, to tell later whether it still holds (landlock-read-cache.ts). */
export interface CarveInputs {
  /** the directories listed */
  listed: string[]
  /** every path resolved, and what to (undefined: dangling) */
  resolved: Map<string, string | undefined>
}

function real(path: string, inputs: CarveInputs): string | undefined {
  let target: string | undefined
  try {
    target = realpathSync(path)
  } catch {
    target = undefined // dangling: the launcher could not open it, and it names nothing
  }
  inputs.resolved.set(path, target)
  return target
}

/** The real paths of `dir`'s entries except the one leading to `denied`, recursing into that one. */
function around(dir: string, denied: string, out: string[], carved: Set<string>, inputs: CarveInputs): void {
  carved.add(dir)
  inputs.listed.push(dir)
  const next = relative(dir, denied).split(sep)[0]
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch {
    return // unreadable: nothing beneath it was granted anyway
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.name !== next) {
      // Why the real path of a link: that is the inode the launcher's rule lands on
      const target = entry.isSymbolicLink() ? real(path, inputs) : path
      if (target) out.push(target)
      continue
    }
    if (path === denied) continue
    // Why a denied path's ancestors are never links: the policy resolves denied paths to real ones
    if (entry.isDirectory()) around(path, denied, out, carved, inputs)
  }
}

/** `paths` without those beneath another one (the same rights again add nothing), in order. */
function outermost(paths: readonly string[]): string[] {
  const all = new Set(paths)
  const beneathAnother = (path: string) => {
    for (let up = dirname(path); ; up = dirname(up)) {
      if (all.has(up)) return true
      if (up === dirname(up)) return false
    }
  }
  return [...all].filter((p) => !beneathAnother(p))
}

/**
 * `readRules` (`--ro PATH` pairs) with every existing path of `deny` carved
 * out, and `allow` paths inside them added back. Denied and allowed paths are real.
 */
export function carveReadRules(readRules: readonly string[], deny: readonly string[], allow: readonly string[], inputs: CarveInputs = { listed: [], resolved: new Map() }): CarvedRules {
  let paths: string[] = []
  for (let i = 0; i < readRules.length; i += 2) if (readRules[i] === '--ro') paths.push(readRules[i + 1])
  const others = readRules.filter((_, i) => readRules[i - (i % 2)] !== '--ro')
  const hidden = deny.filter((d) => existsSync(d))
  paths = paths.map((p) => real(p, inputs)).filter((p): p is string => p !== undefined)
  // Why until nothing changes: a link found while carving around one denied path may lead to an
  // ancestor of another (or of the same one, carved already: its other entries are in the list)
  const carved = new Set<string>()
  for (let changed = true; changed; ) {
    changed = false
    const next: string[] = []
    for (const path of paths) {
      if (hidden.some((d) => isInside(d, path))) {
        changed = true // the denied path, or beneath it: no rule
        continue
      }
      const holds = hidden.find((d) => isInside(path, d))
      if (!holds) {
        next.push(path)
        continue
      }
      changed = true
      if (!carved.has(path)) around(path, holds, next, carved, inputs)
    }
    paths = next
  }
  for (const path of allow) if (hidden.some((d) => isInside(d, path)) && existsSync(path)) paths.push(path)
  return { rules: [...outermost(paths).flatMap((p) => ['--ro', p]), ...others], hidden }
}
