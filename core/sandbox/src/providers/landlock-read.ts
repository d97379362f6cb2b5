/**
 * Landlock has no deny rule: a path is readable when a rule covers it or
 * one of its ancestors. So a denied path is hidden by building the read
 * rules around it: a rule on an ancestor of the denied path is replaced by
 * rules on that ancestor's other entries, one level at a time down to the
 * denied path, which ends up outside every rule. An allowed path inside a
 * denied one gets its own rule back. A denied path beneath a writable root
 * (whose rule grants everything beneath it) cannot be carved out without
 * taking away the right to create entries there: it is not hidden, and
 * the caller reports it.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { isInside } from '../policy.js'

export interface CarvedRules {
  /** the launcher's read flags (`--ro PATH` pairs) */
  rules: string[]
  /** denied paths now outside every rule */
  hidden: string[]
}

/** Rules for `dir`'s entries except the one leading to `denied`, recursing into that one. */
function around(dir: string, denied: string, out: string[]): void {
  const next = relative(dir, denied).split(sep)[0]
  let names: string[]
  try {
    names = readdirSync(dir).sort()
  } catch {
    return // unreadable: nothing beneath it was granted anyway
  }
  for (const name of names) {
    const path = join(dir, name)
    if (name !== next) {
      // Why existsSync: a dangling symlink would make the launcher refuse to start
      if (existsSync(path)) out.push(path)
      continue
    }
    if (path === denied) continue
    let st
    try {
      st = lstatSync(path)
    } catch {
      continue
    }
    if (st.isDirectory()) around(path, denied, out)
  }
}

/**
 * `readRules` (`--ro PATH` pairs) with every existing path of `deny` carved
 * out, and `allow` paths inside them added back. Paths are real.
 */
export function carveReadRules(readRules: readonly string[], deny: readonly string[], allow: readonly string[]): CarvedRules {
  let paths: string[] = []
  for (let i = 0; i < readRules.length; i += 2) if (readRules[i] === '--ro') paths.push(readRules[i + 1])
  const others = readRules.filter((_, i) => readRules[i - (i % 2)] !== '--ro')
  const hidden: string[] = []
  for (const denied of deny) {
    if (!existsSync(denied)) continue
    const next: string[] = []
    for (const path of paths) {
      if (isInside(denied, path)) continue // the rule is the denied path or beneath it
      if (isInside(path, denied)) around(path, denied, next)
      else next.push(path)
    }
    paths = next
    hidden.push(denied)
  }
  for (const path of allow) if (hidden.some((d) => isInside(d, path)) && existsSync(path)) paths.push(path)
  return { rules: [...paths.flatMap((p) => ['--ro', p]), ...others], hidden }
}
