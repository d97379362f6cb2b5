/**
 * A rule set: every source's `permissions` block checked and compiled once
 * per load. Sources are the settings files (highest precedence first) and the
 * inline config; `allow`/`ask`/`deny` merge across them, `defaultMode` comes
 * from the highest source that sets it. Anything wrong — a rule that cannot be
 * read, a tool no rule may name, a key of the wrong type — is an
 * `INVALID_CONFIG` error naming the source, the JSON path and the rule: the
 * set is built whole or not at all.
 */
import { isAbsolute, resolve } from 'node:path'
import { isObject, show } from '@dsh/claude-code-settings'
import { KernelError } from '@dsh/kernel'
import { compileBashPattern, type BashPattern } from './bash-pattern.js'
import { isMode, MODES, type PermissionMode } from './modes.js'
import { compilePathPattern, type PathBases, type PathMatcher } from './path-pattern.js'
import { parseRule, type ParsedRule, type RuleList } from './rule.js'
import { CLAUDE_TOOLS } from './tool-kinds.js'

export const INLINE = 'inline'
export const LISTS: readonly RuleList[] = ['deny', 'ask', 'allow']

/** Tools whose path rules Claude Code accepts but does not consult (v2.1.210): use Edit(…) and Read(…) */
const PATH_RULES_UNREAD: ReadonlySet<string> = new Set(['Write', 'NotebookEdit', 'Glob', 'MultiEdit'])

/** One source's `permissions` value, as read. */
export interface PermissionSource {
  /** a settings file's path, or `inline` */
  source: string
  /** the directory holding the source's `.claude/` (the workspace for inline rules and the managed file) */
  root: string
  permissions: unknown
}

export interface CompiledRule extends ParsedRule {
  list: RuleList
  source: string
  /** the JSON path inside the source */
  path: string
  bash?: BashPattern
  paths?: PathMatcher
  domain?: (host: string) => boolean
}

export interface BashIndex {
  /** `Bash` / `Bash(*)`: every command */
  any: CompiledRule[]
  byHead: Map<string, CompiledRule[]>
  general: CompiledRule[]
}

export interface RuleSet {
  rules: readonly CompiledRule[]
  /** non-Bash rules by the tool they name (`mcp__server` for server-wide MCP rules) */
  byTool: Map<string, Record<RuleList, CompiledRule[]>>
  bash: Record<RuleList, BashIndex>
  /** the highest source's `defaultMode`, and where it came from */
  defaultMode?: { mode: PermissionMode; source: string }
  additionalDirectories: string[]
  /** a `disableBypassPermissionsMode: "disable"` seen in any source */
  bypassDisabled: boolean
  /**
   * Rules naming a Claude Code built-in tool with no specifier (`"Bash"`,
   * `"Read"`, `"WebFetch(*)"`): they are about the client's own tool, which
   * dsh's tools stand in for, and never decide a call of dsh's (see
   * docs/decisions/2026-12-02-rules-for-the-client-and-for-dsh.md).
   */
  clientOnly: CompiledRule[]
  /** tool-name glob rules (`*`, `mcp__*`); an allow glob not anchored at `mcp__<server>__` is not among them, as Claude Code skips it */
  globs: CompiledRule[]
}

function fail(source: string, path: string, message: string): never {
  throw new KernelError('INVALID_CONFIG', `${source}: ${path}: ${message}`, { details: { file: source, path } })
}

function emptyLists(): Record<RuleList, CompiledRule[]> {
  return { deny: [], ask: [], allow: [] }
}

function emptyIndex(): BashIndex {
  return { any: [], byHead: new Map(), general: [] }
}

export interface CompileOptions {
  workspace: string
  home: string
  /** names `toolNames` maps our tools to: rules may name them too */
  extraTools: ReadonlySet<string>
}

export function compileRuleSet(sources: readonly PermissionSource[], options: CompileOptions): RuleSet {
  const set: RuleSet = {
    rules: [],
    byTool: new Map(),
    bash: { deny: emptyIndex(), ask: emptyIndex(), allow: emptyIndex() },
    additionalDirectories: [],
    bypassDisabled: false,
    clientOnly: [],
    globs: [],
  }
  const rules: CompiledRule[] = []
  for (const { source, root, permissions } of sources) {
    if (permissions === undefined) continue
    if (!isObject(permissions)) fail(source, 'permissions', `expected an object, got ${show(permissions)}`)
    const bases: PathBases = { workspace: options.workspace, home: options.home, root }
    for (const list of LISTS) {
      const entries = Object.hasOwn(permissions, list) ? permissions[list] : undefined
      if (entries === undefined) continue
      if (!Array.isArray(entries)) fail(source, `permissions.${list}`, `expected an array of rules, got ${show(entries)}`)
      entries.forEach((entry, index) => {
        const path = `permissions.${list}[${index}]`
        const parsed = parseRule(entry, options.extraTools)
        if (typeof parsed === 'string') fail(source, path, `rule ${show(entry)} ${parsed}`)
        rules.push(compileRule(parsed, list, source, path, bases))
      })
    }
    const mode = Object.hasOwn(permissions, 'defaultMode') ? permissions.defaultMode : undefined
    if (mode !== undefined) {
      if (!isMode(mode)) fail(source, 'permissions.defaultMode', `expected one of ${MODES.join(', ')}, got ${show(mode)}`)
      set.defaultMode ??= { mode, source }
    }
    const dirs = Object.hasOwn(permissions, 'additionalDirectories') ? permissions.additionalDirectories : undefined
    if (dirs !== undefined) {
      if (!Array.isArray(dirs)) fail(source, 'permissions.additionalDirectories', `expected an array of directories, got ${show(dirs)}`)
      dirs.forEach((dir, index) => {
        if (typeof dir !== 'string' || dir === '') fail(source, `permissions.additionalDirectories[${index}]`, `expected a directory, got ${show(dir)}`)
        set.additionalDirectories.push(resolveDirectory(dir, bases))
      })
    }
    const disable = Object.hasOwn(permissions, 'disableBypassPermissionsMode') ? permissions.disableBypassPermissionsMode : undefined
    if (disable !== undefined && disable !== 'disable') fail(source, 'permissions.disableBypassPermissionsMode', `expected "disable", got ${show(disable)}`)
    if (disable === 'disable') set.bypassDisabled = true
    // other keys inside `permissions` are Claude Code features this plugin does not use; they are ignored as Claude Code ignores unknown keys
  }
  set.rules = rules
  for (const rule of rules) index(set, rule)
  return set
}

function resolveDirectory(dir: string, bases: PathBases): string {
  if (dir === '~' || dir.startsWith('~/')) return resolve(bases.home, dir.slice(2))
  return isAbsolute(dir) ? resolve(dir) : resolve(bases.root, dir)
}

function compileRule(parsed: ParsedRule, list: RuleList, source: string, path: string, bases: PathBases): CompiledRule {
  const rule: CompiledRule = { ...parsed, list, source, path }
  if (parsed.specifier === undefined) return rule
  if (parsed.kind === 'command') rule.bash = compileBashPattern(parsed.specifier)
  else if (parsed.kind === 'path') rule.paths = compilePathPattern(parsed.specifier, bases, list !== 'allow')
  else if (parsed.kind === 'domain') {
    const host = parsed.specifier.slice('domain:'.length).toLowerCase()
    rule.domain = host === '*'
      ? () => true
      : host.startsWith('*.')
        ? (candidate) => candidate.endsWith(host.slice(1))
        : (candidate) => candidate === host
  }
  return rule
}

function index(set: RuleSet, rule: CompiledRule): void {
  // Claude Code checks file paths against Read and Edit rules only: an allow with a path for Write, Glob, … is never consulted (a deny or ask still is here: it can only refuse)
  if (rule.list === 'allow' && rule.specifier !== undefined && PATH_RULES_UNREAD.has(rule.tool)) return
  if (rule.toolGlob) {
    if (rule.list !== 'allow' || rule.anchored) set.globs.push(rule)
    return
  }
  // `deny: ["Bash"]` switches Claude Code's own Bash off so that it uses dsh's: it must not switch dsh's off too
  if (rule.specifier === undefined && CLAUDE_TOOLS.has(rule.tool)) {
    set.clientOnly.push(rule)
    return
  }
  if (rule.kind === 'command' && rule.tool === 'Bash') {
    const target = set.bash[rule.list]
    if (!rule.bash) target.any.push(rule)
    else if (rule.bash.head !== undefined) {
      const list = target.byHead.get(rule.bash.head) ?? []
      list.push(rule)
      target.byHead.set(rule.bash.head, list)
    } else target.general.push(rule)
    return
  }
  let lists = set.byTool.get(rule.tool)
  if (!lists) set.byTool.set(rule.tool, (lists = emptyLists()))
  lists[rule.list].push(rule)
}
