/** `dsh setup claude-code`: the files changed for each scope, since Claude Code applies a project's shared rules only once it is trusted (decisions/2026-12-02-client-setup.md). */
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
