/** One Bash command decided part by part, since a rule about `rm` must meet the `rm` inside `sh -c`, `xargs` or a pipeline (deny > unknown > ask > none > allow: docs/architecture.md, Permission rules). */
import { splitFlags, UNKNOWN_WORD, type SplitWords } from './bash-pattern.js'
import type { BashIndex, CompiledRule, RuleSet } from './ruleset.js'
import { analyzeShell, type ShellAnalysis, type SimpleCommand } from './shell.js'
import { programName, unwrap } from './wrappers.js'

export type Verdict = 'deny' | 'unknown' | 'ask' | 'none' | 'allow'

export interface PartResult {
  verdict: Verdict
  rule?: CompiledRule
  reason?: string
  /**
   * For `unknown`: the programs the part may run, when only its arguments are
   * unknown (a deny rule for another program cannot be what it runs); absent
   * when the program itself is not known before the run. `rule` on an
   * `unknown` is an ask rule another part (or the known words) met.
   */
  programs?: readonly string[]
}

const RANK: Record<Verdict, number> = { allow: 0, none: 1, ask: 2, unknown: 3, deny: 4 }
const MAX_DEPTH = 8
const CACHE_SIZE = 512

/** Parses by command text: a model repeats commands, and parsing costs more than matching. */
const parses = new Map<string, ShellAnalysis>()

export function cachedAnalysis(command: string): ShellAnalysis {
  let analysis = parses.get(command)
  if (analysis) return analysis
  analysis = analyzeShell(command)
  // first in, first out: the oldest parse goes
  if (parses.size >= CACHE_SIZE) parses.delete(parses.keys().next().value!)
  parses.set(command, analysis)
  return analysis
}

/** A part of the command the preset allows without a rule (Codex's read-only commands). */
export type PresetAllow = (words: readonly string[]) => boolean

/** What a part is, apart from any rule. */
interface Prepared {
  name: string | null
  /** every word and assignment known, and no unknown tail */
  known: boolean
  bare: string
  /** with the assignments in front (what allow rules see) */
  full: string
  /** what deny and ask rules see, with the first word of each */
  texts: string[]
  heads: string[]
  split: SplitWords
  looseHead: string
  wrapped?: ReturnType<typeof unwrap>
  /** the wrapped command as a part of its own (for `command` wrappers) */
  inner?: SimpleCommand
  hasAssignments: boolean
}

interface Part extends SimpleCommand {
  /** the command gets arguments only known at run time (under xargs) */
  unknownTail?: boolean
}

const prepared = new WeakMap<SimpleCommand, Prepared>()

function render(words: readonly (string | null)[], unknownTail: boolean): string {
  let text = ''
  for (const word of words) text += (text ? ' ' : '') + (word ?? UNKNOWN_WORD)
  return unknownTail ? `${text} ${UNKNOWN_WORD}` : text
}

function headOf(text: string): string {
  const space = text.indexOf(' ')
  return space < 0 ? text : text.slice(0, space)
}

function prepare(command: Part): Prepared {
  let facts = prepared.get(command)
  if (facts) return facts
  const { assignments, words } = command
  const tail = !!command.unknownTail
  const name = words[0] ?? null
  const bare = render(words, tail)
  const full = assignments.length ? render([...assignments, ...words], tail) : bare
  const loose = words.map((word) => word ?? UNKNOWN_WORD)
  if (tail) loose.push(UNKNOWN_WORD)
  const texts = full === bare ? [bare] : [full, bare]
  // deny and ask also see the program by its base name: `/bin/rm` is `rm`
  if (typeof name === 'string' && programName(name) !== name) {
    loose[0] = programName(name)
    texts.push(render([loose[0], ...words.slice(1)], tail))
  }
  facts = {
    name,
    known: !tail && words.every((word) => word !== null) && assignments.every((word) => word !== null),
    bare,
    full,
    texts,
    heads: texts.map(headOf),
    split: splitFlags(loose),
    looseHead: loose[0] ?? UNKNOWN_WORD,
    hasAssignments: assignments.length > 0,
  }
  if (typeof name === 'string') {
    facts.wrapped = unwrap(words)
    if (facts.wrapped?.kind === 'command') {
      const inner: Part = { assignments: [], words: facts.wrapped.words }
      if (tail || facts.wrapped.unknownTail) inner.unknownTail = true
      facts.inner = inner
    }
  }
  prepared.set(command, facts)
  return facts
}

export function decideBash(command: string, set: RuleSet, presetAllow?: PresetAllow): PartResult {
  return decideScript(command, set, 0, presetAllow)
}

/**
 * One program's argv (an exec's, not command text) through the same matching as a part of a
 * command, and the first ask rule its own words meet (not a command it wraps: that one comes back
 * as an exec of its own). One preparation of the words serves both.
 */
export function decideWords(words: readonly string[], set: RuleSet): { part: PartResult; asked?: CompiledRule } {
  const command: Part = { assignments: [], words: [...words] }
  const part = decidePart(command, set, 0)
  if (part.verdict === 'deny') return { part }
  const asked = match(set.bash.ask, prepare(command), true)
  return asked ? { part, asked } : { part }
}

function decideScript(script: string, set: RuleSet, depth: number, presetAllow?: PresetAllow): PartResult {
  const analysis = cachedAnalysis(script)
  if (analysis.kind === 'unparseable') return { verdict: 'unknown', reason: analysis.reason }
  const { commands } = analysis
  if (!commands.length) return { verdict: 'none' }
  let unknown: PartResult | undefined
  let asked: PartResult | undefined
  let worst: PartResult | undefined
  let first: PartResult | undefined
  for (const command of commands) {
    const part = decidePart(command, set, depth, presetAllow)
    // nothing outranks a deny
    if (part.verdict === 'deny') return part
    first ??= part
    if (part.verdict === 'unknown') unknown = unknown ? { ...unknown, programs: merged(unknown.programs, part.programs), rule: unknown.rule ?? part.rule } : part
    else if (part.verdict === 'ask') asked ??= part
    else if (!worst || RANK[part.verdict] > RANK[worst.verdict]) worst = part
  }
  // an unknown part keeps what the others asked for: its programs are all the rules may not see, and an ask rule that matched still asks
  if (unknown) return asked && !unknown.rule ? { ...unknown, rule: asked.rule } : unknown
  if (asked) return asked
  // every part allowed: the first part's rule is the one recorded
  return worst!.verdict === 'allow' ? first! : worst!
}

/** The programs two unknown parts may run: absent (any) when either may run any. */
function merged(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  return a && b ? [...new Set([...a, ...b])] : undefined
}

function decidePart(command: Part, set: RuleSet, depth: number, presetAllow?: PresetAllow): PartResult {
  if (depth > MAX_DEPTH) return { verdict: 'unknown', reason: `commands nested more than ${MAX_DEPTH} deep` }
  const facts = prepare(command)
  const denied = match(set.bash.deny, facts, true)
  if (denied) return { verdict: 'deny', rule: denied }

  let inner: PartResult | undefined
  const { wrapped } = facts
  if (wrapped?.kind === 'unknown') inner = { verdict: 'unknown', reason: wrapped.reason }
  else if (facts.inner) inner = decidePart(facts.inner, set, depth + 1, presetAllow)
  else if (wrapped?.kind === 'script') {
    inner = wrapped.script === null
      ? { verdict: 'unknown', reason: 'the script given to a shell is not known before the run' }
      : decideScript(wrapped.script, set, depth + 1, presetAllow)
  }
  if (inner?.verdict === 'deny') return inner

  // an ask rule met by what is known of the part still asks when the rest is unknown
  const asked = match(set.bash.ask, facts, true)
  const unknown = (result: PartResult): PartResult => (asked && !result.rule ? { ...result, rule: asked } : result)
  if (facts.name === null) return unknown({ verdict: 'unknown', reason: 'the command name is not known before the run' })
  if (inner?.verdict === 'unknown') return unknown(inner)
  if (!facts.known) return unknown({ verdict: 'unknown', reason: `${facts.bare.replaceAll(UNKNOWN_WORD, '…')}: an argument is not known before the run`, programs: facts.heads })
  if (asked) return { verdict: 'ask', rule: asked }
  if (inner?.verdict === 'ask') return inner
  const allowed = match(set.bash.allow, facts, false)
  if (allowed) return { verdict: 'allow', rule: allowed }
  if (wrapped && wrapped.kind !== 'unknown' && wrapped.transparent && inner?.verdict === 'allow') return inner
  if (presetAllow && !facts.hasAssignments && presetAllow(command.words as string[])) return { verdict: 'allow' }
  return { verdict: 'none' }
}

/**
 * The first rule of `index` that a part we cannot read might meet at run
 * time: any rule when the program is unknown, else one for those programs (or
 * one whose program is a pattern). The floor under every preset: what the
 * rules might deny is never let through unasked.
 */
export function mightMeet(index: BashIndex, programs: readonly string[] | undefined): CompiledRule | undefined {
  if (index.any.length) return index.any[0]
  if (programs === undefined) {
    for (const rules of index.byHead.values()) if (rules.length) return rules[0]
    return index.general[0]
  }
  for (const program of programs) {
    const rules = index.byHead.get(program)
    if (rules?.length) return rules[0]
  }
  return index.general[0]
}

/** Deny and ask rules see every text and the flags as a set; allow rules the full text as written. */
function match(index: BashIndex, facts: Prepared, loose: boolean): CompiledRule | undefined {
  if (index.any.length) return index.any[0]
  const texts = loose ? facts.texts : [facts.full]
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]
    const candidates = index.byHead.get(loose ? facts.heads[i] : headOf(text))
    if (candidates) for (const rule of candidates) if (rule.bash!.strict(text)) return rule
    for (const rule of index.general) if (rule.bash!.strict(text)) return rule
  }
  if (!loose) return undefined
  const candidates = index.byHead.get(facts.looseHead)
  if (candidates) for (const rule of candidates) if (rule.bash!.loose?.(facts.split)) return rule
  for (const rule of index.general) if (rule.bash!.loose?.(facts.split)) return rule
  return undefined
}
