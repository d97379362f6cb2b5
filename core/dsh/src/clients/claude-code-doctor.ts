/**
 * `dsh doctor claude-code`: Claude Code's effective configuration for this project, read the way
 * Claude Code 2.1 applies it — managed (with its drop-ins), user, project and local settings (a
 * project's allow rules only once the project is trusted), the servers of `~/.claude.json` and
 * `.mcp.json` — and each thing that keeps dsh from being its tool layer.
 */
import { dirname } from 'node:path'
import { CLAUDE_TOOL_NAMES, withDropIns } from '@dsh/claude-code-settings'
import { compileMatcher } from '@dsh/hooks-claude-code'
import { claudeFiles, type ClaudeLocation } from './claude-code-files.js'
import { isObject, readJson, strings, type Problem } from './problems.js'
import { CLAUDE_ALLOW, CLAUDE_BUILTINS, commandProblem, SERVER_NAME } from './recipe.js'

interface Settings {
  file: string
  scope: 'managed' | 'user' | 'project' | 'local'
  doc: Record<string, unknown>
}

const TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']

/** Whether a rule (no specifier) names dsh's tool `tool`, or all of dsh's tools. */
function namesDsh(rule: string, tool?: string): boolean {
  if (rule === 'mcp__*' || rule === CLAUDE_ALLOW || rule === `${CLAUDE_ALLOW}__*`) return true
  return tool !== undefined && rule === `${CLAUDE_ALLOW}__${tool}`
}

function trusted(state: Record<string, unknown> | undefined, project: string): boolean {
  const projects = isObject(state?.projects) ? state.projects : {}
  for (let dir = project; ; dir = dirname(dir)) {
    const entry = projects[dir]
    if (isObject(entry) && entry.hasTrustDialogAccepted === true) return true
    if (dirname(dir) === dir) return false
  }
}

export function claudeCodeProblems(location: ClaudeLocation = {}): Problem[] {
  const problems: Problem[] = []
  const files = claudeFiles(location)
  const settings: Settings[] = []
  for (const file of withDropIns(files.managed)) {
    const doc = readJson(file, problems)
    if (doc) settings.push({ file, scope: 'managed', doc })
  }
  for (const [file, scope] of [[files.user, 'user'], [files.projectSettings, 'project'], [files.localSettings, 'local']] as const) {
    const doc = readJson(file, problems)
    if (doc) settings.push({ file, scope, doc })
  }
  const state = readJson(files.state, problems)
  const isTrusted = trusted(state, files.project)
  const rulesOf = (s: Settings, kind: 'allow' | 'deny' | 'ask') => strings(isObject(s.doc.permissions) ? s.doc.permissions[kind] : undefined)

  // the server
  const local = isObject(state?.projects) && isObject(state.projects[files.project]) ? state.projects[files.project] as Record<string, unknown> : undefined
  const mcpJson = readJson(files.mcpJson, problems)
  const candidates: { where: string; entry: unknown; enabled: boolean }[] = []
  const entryIn = (doc: unknown) => (isObject(doc) && isObject(doc.mcpServers) ? doc.mcpServers[SERVER_NAME] : undefined)
  if (entryIn(local) !== undefined) candidates.push({ where: `${files.state} (projects["${files.project}"], local scope)`, entry: entryIn(local), enabled: true })
  if (entryIn(state) !== undefined) candidates.push({ where: `${files.state} (user scope)`, entry: entryIn(state), enabled: true })
  if (entryIn(mcpJson) !== undefined) {
    const enabled = settings.some((s) => s.doc.enableAllProjectMcpServers === true || strings(s.doc.enabledMcpjsonServers).includes(SERVER_NAME)) && !settings.some((s) => strings(s.doc.disabledMcpjsonServers).includes(SERVER_NAME))
    candidates.push({ where: files.mcpJson, entry: entryIn(mcpJson), enabled })
  }
  const first = candidates[0]
  if (!first) {
    problems.push({ problem: 'dsh is not one of Claude Code\'s MCP servers (no "dsh" server in ~/.claude.json or .mcp.json)', fix: 'dsh setup claude-code (or --scope local / project)' })
  } else if (!first.enabled) {
    problems.push({ problem: `the dsh server of ${first.where} is not enabled: Claude Code asks before using a project's .mcp.json servers`, fix: `add "dsh" to enabledMcpjsonServers in ${files.localSettings}, or run dsh setup claude-code --scope project` })
  } else {
    const entry = isObject(first.entry) ? first.entry : {}
    const broken = commandProblem(entry.command, entry.args)
    if (broken) problems.push({ problem: `the dsh server of ${first.where} ${broken}`, fix: 'dsh setup claude-code (it writes this node and this dsh by absolute path)' })
  }

  // Claude Code's own tools: a bare deny rule in any file Claude Code applies removes one
  const denied = new Set(settings.flatMap((s) => rulesOf(s, 'deny')))
  const on = CLAUDE_BUILTINS.filter((tool) => !denied.has(tool))
  if (on.length > 0) problems.push({ problem: `Claude Code's own ${on.join(', ')} ${on.length === 1 ? 'is' : 'are'} still on: the model can use ${on.length === 1 ? 'it' : 'them'} instead of dsh's tools, past every gate of dsh`, fix: `dsh setup claude-code, or add ${on.map((t) => JSON.stringify(t)).join(', ')} to permissions.deny in ${files.user}` })

  // rules that switch dsh's tools off, in Claude Code and in dsh
  for (const s of settings) {
    for (const kind of ['deny', 'ask'] as const) {
      for (const rule of rulesOf(s, kind)) {
        const tools = Object.keys(CLAUDE_TOOL_NAMES).filter((tool) => namesDsh(rule, tool))
        if (tools.length === 0) continue
        const which = tools.length === Object.keys(CLAUDE_TOOL_NAMES).length ? 'every dsh tool' : `dsh's ${tools.join(', ')}`
        if (kind === 'deny') problems.push({ problem: `the deny rule "${rule}" in ${s.file} denies ${which}`, fix: `remove "${rule}" from permissions.deny in ${s.file}; to keep Claude Code's own tools off, deny them by their names (Bash, Read, …), which do not name dsh's tools` })
        else problems.push({ problem: `the ask rule "${rule}" in ${s.file} makes Claude Code ask before ${which}; headless (claude -p) it refuses them`, fix: `remove "${rule}" from permissions.ask in ${s.file}: dsh asks itself where its approval policy says so` })
      }
    }
  }

  // dsh let through Claude Code's own check: an allow rule in a file Claude Code applies
  const bypass = settings.some((s) => isObject(s.doc.permissions) && s.doc.permissions.defaultMode === 'bypassPermissions')
  const allowedIn = settings.filter((s) => rulesOf(s, 'allow').some((rule) => namesDsh(rule)))
  const applied = allowedIn.filter((s) => s.scope !== 'project' || isTrusted)
  if (!bypass && first && applied.length === 0) {
    const partial = Object.keys(CLAUDE_TOOL_NAMES).filter((tool) => settings.some((s) => (s.scope !== 'project' || isTrusted) && rulesOf(s, 'allow').includes(`${CLAUDE_ALLOW}__${tool}`)))
    if (allowedIn.length > 0) problems.push({ problem: `"${CLAUDE_ALLOW}" is allowed only in ${allowedIn.map((s) => s.file).join(', ')}, which Claude Code ignores until the project is trusted: headless (claude -p) it refuses dsh's tools`, fix: `dsh setup claude-code (user scope) or --scope local, or run claude here once and accept the trust dialog` })
    else if (partial.length < Object.keys(CLAUDE_TOOL_NAMES).length) problems.push({ problem: `dsh's tools are not allowed in Claude Code's own permissions${partial.length > 0 ? ` (only ${partial.join(', ')})` : ''}: headless (claude -p) it refuses them ("you haven't granted it yet"), interactive it asks before dsh does`, fix: `dsh setup claude-code, or add "${CLAUDE_ALLOW}" to permissions.allow in ${files.user}` })
  }

  // hooks that run twice: Claude Code runs a project hook for mcp__dsh__<tool>, and dsh runs it for its tool under the built-in name
  for (const s of settings.filter((x) => x.scope === 'project' || x.scope === 'local')) {
    const hooks = isObject(s.doc.hooks) ? s.doc.hooks : {}
    for (const event of TOOL_EVENTS) {
      const groups = Array.isArray(hooks[event]) ? hooks[event] : []
      for (const group of groups) {
        if (!isObject(group)) continue
        const text = typeof group.matcher === 'string' ? group.matcher : undefined
        const matcher = compileMatcher(text)
        if (typeof matcher === 'string') continue
        const twice = Object.entries(CLAUDE_TOOL_NAMES).filter(([tool, builtin]) => matcher(`${CLAUDE_ALLOW}__${tool}`) && matcher(builtin)).map(([tool]) => tool)
        if (twice.length === 0) continue
        problems.push({
          problem: `the ${event} hook with matcher ${JSON.stringify(text ?? '')} in ${s.file} runs twice for dsh's ${twice.join(', ')}: in Claude Code (as mcp__dsh__${twice[0]}) and again in dsh (as ${CLAUDE_TOOL_NAMES[twice[0]!]})`,
          fix: text !== undefined && /mcp__/.test(text) ? `drop the mcp__dsh__ names from the matcher: dsh runs the project's hooks for its own tools` : `narrow the matcher to the tools it means, or move the hook to ${files.user}, which dsh does not read`,
        })
      }
    }
  }
  return problems
}
