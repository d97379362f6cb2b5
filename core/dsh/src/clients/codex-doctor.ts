/**
 * `dsh doctor codex`: Codex's config.toml (user, and each `[profiles.<name>]` that would turn
 * something back on) and each thing that keeps dsh from being its tool layer.
 */
import { readFileSync, statSync } from 'node:fs'
import { ConfigFileError } from './config-file.js'
import { codexConfigPath, type CodexLocation } from './codex-setup.js'
import { isObject, type Problem } from './problems.js'
import { commandProblem, SERVER_NAME } from './recipe.js'
import { parseToml } from './toml-edit.js'

/** The built-in tools' switches, and what each one leaves on when it is not at dsh's value. */
const SWITCHES: { path: string[]; want: unknown; what: string }[] = [
  { path: ['web_search'], want: 'disabled', what: 'its web_search (the web, outside dsh\'s network policy)' },
  { path: ['include_apply_patch_tool'], want: false, what: 'its apply_patch editor (writes outside dsh)' },
  { path: ['features', 'shell_tool'], want: false, what: 'its shell tool' },
  { path: ['features', 'unified_exec'], want: false, what: 'its exec_command shell' },
]

/** Codex 0.171's terminal UI hosts its sessions in a daemon that outlives /quit, and dsh mcp (and its session) with them. */
const DAEMON = { path: ['features', 'daemon_auto_start'], want: false }

function get(doc: unknown, path: readonly string[]): unknown {
  let here = doc
  for (const key of path) here = isObject(here) ? here[key] : undefined
  return here
}

const line = (path: readonly string[], value: unknown) => `${path.length > 1 ? `[${path.slice(0, -1).join('.')}] ` : ''}${path[path.length - 1]} = ${JSON.stringify(value)}`

export function codexProblems(location: CodexLocation = {}): Problem[] {
  const problems: Problem[] = []
  const file = codexConfigPath(location)
  let doc: Record<string, unknown> = {}
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isFile()) doc = parseToml(readFileSync(file, 'utf8'), file)
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error
    return [{ problem: error.message.replace('; nothing was written', ''), fix: `correct ${file}: Codex cannot read it either` }]
  }
  const server = get(doc, ['mcp_servers', SERVER_NAME])
  if (!isObject(server)) {
    problems.push({ problem: `dsh is not one of Codex's MCP servers (no [mcp_servers.${SERVER_NAME}] in ${file})`, fix: 'dsh setup codex' })
  } else {
    if (server.enabled === false) problems.push({ problem: `[mcp_servers.${SERVER_NAME}] is switched off (enabled = false) in ${file}`, fix: `remove enabled = false from [mcp_servers.${SERVER_NAME}]` })
    const broken = commandProblem(server.command, server.args)
    if (broken) problems.push({ problem: `the dsh server of ${file} ${broken}`, fix: 'dsh setup codex (it writes this node and this dsh by absolute path)' })
    if (server.default_tools_approval_mode !== 'approve') problems.push({ problem: `Codex approves dsh's destructive tools (bash, write, edit) itself: codex exec refuses them ("MCP tool call requires approval, but approval policy is never"), and the terminal UI asks before dsh does`, fix: `set default_tools_approval_mode = "approve" under [mcp_servers.${SERVER_NAME}] (dsh setup codex): dsh's approval decides` })
    const tools = isObject(server.tools) ? server.tools : {}
    for (const [tool, spec] of Object.entries(tools)) {
      if (isObject(spec) && typeof spec.approval_mode === 'string' && spec.approval_mode !== 'approve') problems.push({ problem: `[mcp_servers.${SERVER_NAME}.tools.${tool}] approval_mode = ${JSON.stringify(spec.approval_mode)} makes Codex ask (headless: refuse) before dsh's ${tool}`, fix: `remove it, or set it to "approve"` })
    }
  }
  const on = SWITCHES.filter((s) => get(doc, s.path) !== s.want)
  if (on.length > 0) problems.push({ problem: `Codex keeps ${on.map((s) => s.what).join(', ')}: the model can use ${on.length === 1 ? 'it' : 'them'} past every gate of dsh`, fix: `dsh setup codex, or in ${file}: ${on.map((s) => line(s.path, s.want)).join('; ')}` })
  if (get(doc, DAEMON.path) !== DAEMON.want) problems.push({ problem: 'Codex\'s terminal UI runs its sessions in a background app-server that outlives /quit: dsh mcp stays running as its child, its session log open and its SessionEnd hooks not run', fix: `dsh setup codex, or in ${file}: ${line(DAEMON.path, DAEMON.want)}` })
  // a profile that turns one back on (selected with --profile or `profile = ...`)
  const profiles = isObject(doc.profiles) ? doc.profiles : {}
  for (const [name, profile] of Object.entries(profiles)) {
    const back = SWITCHES.filter((s) => get(profile, s.path) !== undefined && get(profile, s.path) !== s.want)
    if (back.length > 0) problems.push({ problem: `the profile "${name}" in ${file} turns back on ${back.map((s) => s.what).join(', ')}`, fix: `in [profiles.${name}]: ${back.map((s) => line(s.path, s.want)).join('; ')}, or remove those keys` })
  }
  return problems
}
