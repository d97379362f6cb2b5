/**
 * The decision table (DESIGN §15.3): rules first — deny > ask > allow, the
 * first match in that order — then the mode's default, then the preset.
 * Returns what was decided, by which rule from which source (absent exactly
 * when the mode's default decided) and why.
 */
import type { JsonObject } from '@dsh/kernel'
import { decideBash, mightMeet, type PartResult } from './bash-decide.js'
import type { PermissionMode, Preset } from './modes.js'
import { toolPath } from './path-pattern.js'
import { isReadOnlyCommand } from './read-only-commands.js'
import { LISTS, type CompiledRule, type RuleSet } from './ruleset.js'
import { CLAUDE_TOOLS, EDIT_TOOLS, pathArgument, READ_ONLY_TOOLS, ruleToolsFor } from './tool-kinds.js'
import { realpathSync } from 'node:fs'
import { relative, isAbsolute, sep } from 'node:path'

export type Decision = 'allow' | 'ask' | 'deny'

/** The tools a `Read(...)` deny covers beside the readers (NotebookEdit is not one, as in Claude Code). */
const READ_DENY_COVERS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit'])

export interface Outcome {
  decision: Decision
  rule?: CompiledRule
  reason: string
  /** the ask is for running this call with a higher sandbox mode (Codex's `require_escalated`) */
  sandboxMode?: 'workspace-write'
}

export interface CallFacts {
  /** the name rules see (after `toolNames`) */
  tool: string
  /** dsh's own name for the tool (`bash`): rules for `mcp__dsh__<name>` and `mcp__dsh` apply to it */
  name?: string
  args: Readonly<JsonObject>
  /** the tool declares it only reads (`annotations.readOnlyHint`), or is the `run_code` transport */
  readOnly: boolean
}

export interface DecideEnv {
  set: RuleSet
  mode: PermissionMode
  preset?: Preset
  workspace: string
  /** the workspace plus `additionalDirectories` */
  directories: readonly string[]
}

function inside(path: string, directories: readonly string[]): boolean {
  return directories.some((dir) => {
    const rel = relative(dir, path)
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
  })
}

/** The literal path and, when it exists and differs, the path its links lead to. */
function pathsOf(path: string): string[] {
  try {
    const real = realpathSync(path)
    return real === path ? [path] : [path, real]
  } catch {
    return [path]
  }
}

function ruleMatches(rule: CompiledRule, facts: CallFacts, env: DecideEnv, paths: string[] | undefined, host: string | null | undefined): boolean {
  if (rule.specifier === undefined) return true
  if (rule.paths) {
    // a path we cannot resolve meets every deny and ask path rule and no allow rule
    if (!paths) return rule.list !== 'allow'
    return rule.list === 'allow' ? paths.every(rule.paths) : paths.some(rule.paths)
  }
  if (rule.domain) {
    if (host === undefined) return false
    if (host === null) return rule.list !== 'allow'
    return rule.domain(host)
  }
  return false
}

function hostOf(args: Readonly<JsonObject>): string | null | undefined {
  const url = args.url
  if (url === undefined) return undefined
  try {
    const host = new URL(String(url)).hostname.toLowerCase()
    // Why: "example.com." is example.com to DNS and to the sandbox's allow list, so a rule must not miss it
    return host.endsWith('.') ? host.slice(0, -1) : host
  } catch {
    return null
  }
}

/** The name a client calling dsh over MCP (Claude Code, with dsh configured as `dsh`) gives dsh's tool. */
export const DSH_SERVER = 'mcp__dsh'

function toolRules(set: RuleSet, tool: string, name: string | undefined): CompiledRule[][] {
  const names = [...ruleToolsFor(tool)]
  const mcp = /^mcp__([A-Za-z0-9_-]+?)__/.exec(tool)
  if (mcp) names.push(`mcp__${mcp[1]}`)
  if (name !== undefined) names.push(`${DSH_SERVER}__${name}`, DSH_SERVER)
  const lists = names.map((each) => set.byTool.get(each)).filter((lists) => lists !== undefined).flatMap((lists) => LISTS.map((list) => lists![list]))
  const globs = globRules(set, tool, name)
  if (globs.length) lists.push(globs)
  return lists
}

/** The tool-name glob rules that take the call: by dsh's MCP name for the tool, or by a name that is not a built-in's. */
function globRules(set: RuleSet, tool: string, name: string | undefined): CompiledRule[] {
  if (!set.globs.length) return []
  const names = name === undefined ? [] : [`${DSH_SERVER}__${name}`]
  // a glob over the built-in names (`B*`) is about the client's own tools, as a bare built-in name is
  if (!CLAUDE_TOOLS.has(tool)) names.push(tool)
  return set.globs.filter((rule) => names.some((each) => rule.toolGlob!.test(each)))
}

/** The first rule of `list` written for dsh's tool by its MCP name, or for the whole dsh server. */
function dshRule(set: RuleSet, name: string | undefined, list: 'allow' | 'ask' | 'deny'): CompiledRule | undefined {
  if (name === undefined) return undefined
  return set.byTool.get(`${DSH_SERVER}__${name}`)?.[list][0] ?? set.byTool.get(DSH_SERVER)?.[list][0] ?? globRules(set, 'Bash', name).find((rule) => rule.list === list)
}

export function decide(facts: CallFacts, env: DecideEnv): Outcome {
  const outcome = decideByRules(facts, env)
  // plan mode runs read-only tools only, whatever a rule allows or asks
  if (env.mode === 'plan' && outcome.decision !== 'deny' && !facts.readOnly && !READ_ONLY_TOOLS.has(facts.tool)) {
    return { ...outcome, decision: 'deny', reason: `mode plan: only read-only tools run, and ${facts.tool} is not one` }
  }
  return outcome
}

function decideByRules(facts: CallFacts, env: DecideEnv): Outcome {
  if (facts.tool === 'Bash') return decideBashCall(facts, env)
  const pathTool = READ_ONLY_TOOLS.has(facts.tool) || EDIT_TOOLS.has(facts.tool)
  const resolved = pathTool ? toolPath(pathArgument(facts.tool, facts.args), env.workspace) : undefined
  const paths = resolved === undefined ? undefined : pathsOf(resolved)
  const host = hostOf(facts.args)
  const lists = toolRules(env.set, facts.tool, facts.name)
  // a Read deny also blocks editing and writing the same path (creating a file there too), as Claude Code documents since v2.1.208/228
  if (READ_DENY_COVERS.has(facts.tool)) {
    const readDeny = env.set.byTool.get('Read')?.deny
    if (readDeny?.length) lists.unshift(readDeny)
  }
  for (const list of LISTS) {
    for (const rules of lists) {
      for (const rule of rules) {
        if (rule.list === list && ruleMatches(rule, facts, env, paths, host)) return byRule(rule, env)
      }
    }
  }
  return byMode(facts, env, pathTool ? paths ?? null : undefined)
}

export function byRule(rule: CompiledRule, env: DecideEnv): Outcome {
  const where = `${rule.text} (${rule.source})`
  if (rule.list === 'deny') return { decision: 'deny', rule, reason: `denied by the permission rule ${where}` }
  if (rule.list === 'allow') return { decision: 'allow', rule, reason: `allowed by the permission rule ${where}` }
  return noAsk({ decision: 'ask', rule, reason: `the permission rule ${where} asks` }, env, true)
}

/** The modes and presets that never ask turn an ask into an allow or a deny. */
function noAsk(outcome: Outcome, env: DecideEnv, fromRule: boolean): Outcome {
  if (outcome.decision !== 'ask') return outcome
  if (env.preset === 'never') return { ...outcome, decision: 'deny', reason: `${outcome.reason}; approval policy "never" denies what would ask` }
  if (env.mode === 'dontAsk') return { ...outcome, decision: 'deny', reason: `${outcome.reason}; mode dontAsk denies what is not allowed` }
  if (env.mode === 'bypassPermissions') return { ...outcome, decision: 'allow', reason: `${outcome.reason}; mode bypassPermissions does not ask` }
  // on-request and on-failure let the sandbox confine what the mode would ask about; explicit ask rules still ask
  if (!fromRule && (env.preset === 'on-request' || env.preset === 'on-failure')) return { ...outcome, decision: 'allow', reason: `${outcome.reason}; approval policy "${env.preset}" runs it confined without asking` }
  return outcome
}

/** `paths`: the call's paths for a file tool (null: it names none we can read), undefined for other tools. */
function byMode(facts: CallFacts, env: DecideEnv, paths: string[] | null | undefined): Outcome {
  const { mode } = env
  const outside = paths !== undefined && (paths === null || !paths.every((path) => inside(path, env.directories)))
  const readOnly = facts.readOnly || READ_ONLY_TOOLS.has(facts.tool)
  if (mode === 'bypassPermissions') return { decision: 'allow', reason: 'mode bypassPermissions' }
  if (readOnly && !outside) return { decision: 'allow', reason: `mode ${mode}: ${facts.tool} only reads` }
  if (mode === 'plan' && !readOnly) return { decision: 'deny', reason: `mode plan: only read-only tools run, and ${facts.tool} is not one` }
  if (mode === 'acceptEdits' && EDIT_TOOLS.has(facts.tool) && !outside) return { decision: 'allow', reason: 'mode acceptEdits: an edit inside the workspace' }
  const why = readOnly ? `${facts.tool} reads outside the workspace and its additional directories` : `${facts.tool} is not allowed by a rule`
  return noAsk({ decision: 'ask', reason: `mode ${mode}: ${why}` }, env, false)
}

function decideBashCall(facts: CallFacts, env: DecideEnv): Outcome {
  const command = facts.args.command
  if (typeof command !== 'string') return { decision: 'deny', reason: 'Bash: the command is not a string' }
  const escalate = facts.args.sandbox_permissions === 'require_escalated'
  // `mcp__dsh__bash` / `mcp__dsh` rules are about every command of dsh's bash
  const deny = dshRule(env.set, facts.name, 'deny')
  if (deny) return byRule(deny, env)
  const part: PartResult = decideBash(command, env.set, env.preset === 'untrusted' ? isReadOnlyCommand : undefined)
  if (part.verdict === 'deny') return byRule(part.rule!, env)
  const ask = dshRule(env.set, facts.name, 'ask')
  if (escalate) {
    // Codex's on-request: the model asks to leave the sandbox's mode for this one command, with its reason
    const justification = typeof facts.args.justification === 'string' && facts.args.justification ? facts.args.justification : 'no justification given'
    const outcome: Outcome = { decision: 'ask', reason: `the command asks to run with workspace-write: ${justification}`, sandboxMode: 'workspace-write' }
    if (part.rule) outcome.rule = part.rule
    if (env.preset === 'never' || env.mode === 'dontAsk' || env.mode === 'plan') return { ...outcome, decision: 'deny', reason: `${outcome.reason}; mode ${env.mode}${env.preset ? `, approval policy "${env.preset}"` : ''} does not escalate` }
    return outcome
  }
  if (part.verdict === 'unknown') return unknownCommand(ask && !part.rule ? { ...part, rule: ask } : part, env)
  if (ask) return byRule(ask, env)
  if (part.verdict === 'ask') return byRule(part.rule!, env)
  if (part.verdict === 'allow') {
    if (part.rule) return byRule(part.rule, env)
    return { decision: 'allow', reason: 'approval policy "untrusted": every part is a read-only command' }
  }
  const allow = part.verdict === 'none' ? dshRule(env.set, facts.name, 'allow') : undefined
  if (allow) return byRule(allow, env)
  return byMode(facts, env, undefined)
}

/** Advice that goes with an ask about a command the rules cannot read: how not to be asked again. */
const REMEDY = 'write the program names literally so the rules can read them, or approve the call (with no approver it is denied)'

/**
 * A command some part of which cannot be known before the run. A deny or ask
 * rule it might meet is named and decides — the command asks, or is denied
 * where nothing asks (bypassPermissions, dontAsk, "never"): no preset or mode
 * lets it past a rule unasked. With no such rule, the mode and preset decide
 * as for any command no rule names.
 */
function unknownCommand(part: PartResult, env: DecideEnv): Outcome {
  const reason = `Bash: ${part.reason ?? 'the command cannot be read'}`
  const deny = mightMeet(env.set.bash.deny, part.programs)
  if (deny) {
    const why = `${reason}, and the deny rule ${deny.text} (${deny.source}) might apply`
    if (env.preset === 'never' || env.mode === 'dontAsk' || env.mode === 'bypassPermissions') return { decision: 'deny', rule: deny, reason: `${why}; mode ${env.mode}${env.preset ? `, approval policy "${env.preset}"` : ''} does not ask, so it is denied; ${REMEDY}` }
    return { decision: 'ask', rule: deny, reason: `${why}; ${REMEDY}` }
  }
  if (part.rule) return byRule(part.rule, env)
  const ask = mightMeet(env.set.bash.ask, part.programs)
  if (ask) return noAsk({ decision: 'ask', rule: ask, reason: `${reason}, and the ask rule ${ask.text} (${ask.source}) might apply; ${REMEDY}` }, env, true)
  return noAsk({ decision: 'ask', reason }, env, false)
}
