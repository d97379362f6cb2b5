/** Read and Edit deny rules as the sandbox's readDeny and read-only paths, since `bash cat .env` must be held to the rule that stops `read .env` (docs/decisions/2026-12-02-rules-feed-the-sandbox.md). */
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { EDIT_TOOLS } from './tool-kinds.js'
import type { CompiledRule, RuleSet } from './ruleset.js'
import type { ExecCheck } from './exec-check.js'

/** What `ctx.sandbox.restrict` takes (the sandbox service's SandboxRestriction; the sandbox is optional here). */
export interface SandboxRestriction {
  readDeny: string[]
  readOnly: string[]
  unenforced: string[]
  readDenied?(realPath: string): string | undefined
  /** each exec of a confined call checked by the rules (exec-check.ts) */
  exec?: ExecCheck
}

/** How many directory entries one call's expansion looks at, over all its rules. */
export const FEED_WALK_LIMIT = 10_000

const WILD = /[*?[\]{}!\\]/

export interface FeedBases {
  workspace: string
  home: string
  /** the project root of a rule's source (the directory holding its `.claude/`) */
  rootOf(source: string): string
}

/** Where a rule's matches can lie: a single path (`exact`), or a directory to walk. */
function reach(specifier: string, bases: FeedBases, source: string): { exact?: string; walk?: string } {
  let base: string
  let rest: string
  if (specifier.startsWith('//')) [base, rest] = ['/', specifier.slice(2)]
  else if (specifier === '~' || specifier.startsWith('~/')) [base, rest] = [bases.home, specifier.slice(2)]
  else if (specifier.startsWith('/')) [base, rest] = [bases.rootOf(source), specifier.slice(1)]
  else if (specifier.startsWith('./')) [base, rest] = [bases.workspace, specifier.slice(2)]
  // Why the whole workspace: a bare pattern may match at any depth below it (gitignore's rule)
  else return { walk: bases.workspace }
  const parts = rest.split('/').filter((part) => part !== '')
  const literal: string[] = []
  for (const part of parts) {
    if (WILD.test(part)) break
    literal.push(part)
  }
  const remaining = parts.slice(literal.length)
  const at = resolve(base, ...literal)
  if (!remaining.length || (remaining.length === 1 && remaining[0] === '**')) return { exact: at }
  return { walk: at }
}

/** The entries under `dir` the rule matches, each taken whole; false once the budget ran out. */
function collect(dir: string, rule: CompiledRule, out: string[], budget: { left: number }): boolean {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return true // nothing to list: nothing there can be read either
  }
  for (const entry of entries) {
    if (--budget.left < 0) return false
    const path = join(dir, entry.name)
    if (rule.paths!(path)) {
      out.push(path)
      continue
    }
    // Why not through links: the rule speaks of this path, and a link's target is matched where it lies
    if (entry.isDirectory() && !collect(path, rule, out, budget)) return false
  }
  return true
}

function isReadRule(rule: CompiledRule): boolean {
  return rule.tool === 'Read'
}

function isEditRule(rule: CompiledRule): boolean {
  return EDIT_TOOLS.has(rule.tool)
}

/** The sandbox restriction of a rule set's path denies, now. */
export function sandboxRestriction(set: RuleSet, bases: FeedBases, walkLimit = FEED_WALK_LIMIT): SandboxRestriction | undefined {
  const denies = set.rules.filter((rule) => rule.list === 'deny' && rule.paths && rule.specifier !== undefined && (isReadRule(rule) || isEditRule(rule)))
  if (!denies.length) return undefined
  const readDeny: string[] = []
  const readOnly: string[] = []
  const gaps = new Set<string>()
  const budget = { left: walkLimit }
  for (const rule of denies) {
    const into = isReadRule(rule) ? readDeny : readOnly
    const { exact, walk } = reach(rule.specifier!, bases, rule.source)
    if (exact !== undefined) {
      into.push(exact)
      continue
    }
    gaps.add('path-rules-new-paths')
    if (!collect(walk!, rule, into, budget)) gaps.add('path-rules-truncated')
  }
  const reads = denies.filter(isReadRule)
  return {
    readDeny,
    readOnly,
    unenforced: [...gaps],
    ...(reads.length ? { readDenied: (path: string) => reads.find((rule) => rule.paths!(path))?.text } : {}),
  }
}
