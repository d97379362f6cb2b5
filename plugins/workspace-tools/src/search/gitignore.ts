/**
 * `.gitignore` rules as git applies them: a file's own directory's rules
 * first, then each parent's, the deepest rule that says anything deciding
 * (so a deeper `!keep` re-includes what a shallower file ignored). The
 * matching is the `ignore` package's; this module only keeps one rule set
 * per directory on the walk.
 */
import { constants as O } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import type { Ignore } from 'ignore'
import { isInside } from '@dsh/sandbox'
import { readFd, withFd } from '../tools/files.js'
import { ignore } from './libraries.js'

/** A .gitignore larger than this is not read (it is not a security boundary, only a filter). */
const MAX_GITIGNORE_BYTES = 256 * 1024

export interface RuleSet {
  /** the directory the rules are relative to */
  dir: string
  rules: Ignore
}

/** The rules of `dir/.gitignore`, or undefined when there is none or it cannot be read. */
export function readRules(dir: string): RuleSet | undefined {
  let text: string
  try {
    text = withFd(join(dir, '.gitignore'), O.O_RDONLY, (fd) => readFd(fd, '.gitignore', MAX_GITIGNORE_BYTES).toString('utf8'))
  } catch {
    return undefined
  }
  return { dir, rules: ignore()({ allowRelativePaths: true }).add(text) }
}

/** The rule sets of the directories from `top` (included) down to `dir` (excluded), outermost first. */
export function ancestorRules(top: string, dir: string): RuleSet[] {
  if (!isInside(top, dir) || top === dir) return []
  const chain: string[] = []
  for (let at = dirname(dir); ; at = dirname(at)) {
    chain.unshift(at)
    if (at === top || at === dirname(at)) break
  }
  return chain.flatMap((d) => readRules(d) ?? [])
}

/** Whether `path` (a real path; a directory when `isDir`) is ignored by the rule sets, outermost first. */
export function isIgnored(sets: readonly RuleSet[], path: string, isDir: boolean): boolean {
  for (let i = sets.length - 1; i >= 0; i--) {
    const rel = relative(sets[i].dir, path).split(sep).join('/')
    if (!rel || rel.startsWith('..')) continue
    const verdict = sets[i].rules.test(isDir ? `${rel}/` : rel)
    if (verdict.ignored) return true
    if (verdict.unignored) return false
  }
  return false
}
