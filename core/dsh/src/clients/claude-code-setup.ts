/**
 * `dsh setup claude-code`: the files changed for each scope (decisions/2026-12-02-client-setup.md).
 *
 * - user: the server in `~/.claude.json`, the rules in `~/.claude/settings.json` — every project,
 *   trusted or not;
 * - local: the server under this project in `~/.claude.json`, the rules in the project's
 *   `.claude/settings.local.json` (the user's own file, which Claude Code applies before the
 *   project is trusted);
 * - project: the server in `.mcp.json` and the rules in `.claude/settings.json`, shared with the
 *   project (Claude Code applies the shared allow rule only once the project is trusted), and the
 *   allow rule in `.claude/settings.local.json` as well, so that it works here at once.
 *
 * The rules: deny Claude Code's built-in shell, file and web tools, allow `mcp__dsh`.
 */
import { CLAUDE_ALLOW, CLAUDE_BUILTINS, SERVER_NAME, serverCommand } from './recipe.js'
import { readForEdit, type ConfigFile } from './config-file.js'
import { JsonEdit, type JsonPath } from './json-edit.js'
import { claudeFiles, type ClaudeLocation, type ClaudeScope } from './claude-code-files.js'

function edit(path: string, change: (json: JsonEdit) => void, newMode = 0o644): ConfigFile {
  const before = readForEdit(path)
  const json = new JsonEdit(before, path)
  change(json)
  return { path, before, after: json.text, newMode }
}

function server(json: JsonEdit, at: JsonPath): void {
  const { command, args } = serverCommand()
  json.set([...at, 'type'], 'stdio')
  json.set([...at, 'command'], command)
  json.set([...at, 'args'], args)
  // dsh's tools in the model's prompt from the first turn, not behind Claude Code's tool search
  json.set([...at, 'alwaysLoad'], true)
}

function rules(json: JsonEdit, deny: boolean): void {
  json.addToArray(['permissions', 'allow'], [CLAUDE_ALLOW])
  if (deny) json.addToArray(['permissions', 'deny'], CLAUDE_BUILTINS)
}

/** The changed files (each read and checked; nothing is written here). */
export function claudeCodePlan(scope: ClaudeScope, location: ClaudeLocation = {}): ConfigFile[] {
  const files = claudeFiles(location)
  if (scope === 'user') {
    return [edit(files.state, (json) => server(json, ['mcpServers', SERVER_NAME]), 0o600), edit(files.user, (json) => rules(json, true))]
  }
  if (scope === 'local') {
    return [edit(files.state, (json) => server(json, ['projects', files.project, 'mcpServers', SERVER_NAME]), 0o600), edit(files.localSettings, (json) => rules(json, true))]
  }
  return [
    edit(files.mcpJson, (json) => server(json, ['mcpServers', SERVER_NAME])),
    edit(files.projectSettings, (json) => {
      rules(json, true)
      json.addToArray(['enabledMcpjsonServers'], [SERVER_NAME])
    }),
    edit(files.localSettings, (json) => rules(json, false)),
  ]
}
