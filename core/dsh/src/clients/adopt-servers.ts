/**
 * `dsh setup <client> --adopt-mcp-servers`: the servers of the scope being set up move from the
 * client's config into the project's dsh.yml (`plugins.mcp-servers.servers`), so that the client
 * talks only to dsh and dsh runs them confined, under its rules and log. Moved as read
 * (@dsh/mcp-server-sources), never expanded: an entry that refers to a variable (`${VAR}`,
 * Codex's `env_vars`, `bearer_token_env_var`, `env_http_headers`) stays in the client, since
 * dsh's `servers` take literal values and writing the secret into dsh.yml is not ours to do; so
 * does one dsh cannot serve (SSE, an unknown shape), and one whose name dsh.yml already uses
 * for another server. Each is said with its reason.
 */
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { claudeServerConfig, codexServerConfig, EntryProblem, type ServerConfig } from '@dsh/mcp-server-sources'
import { readForEdit, type ConfigFile } from './config-file.js'
import { claudeFiles, type ClaudeLocation, type ClaudeScope } from './claude-code-files.js'
import { codexConfigPath } from './codex-setup.js'
import { DshYml } from './dsh-yml-servers.js'
import { getPath, JsonEdit, type JsonPath } from './json-edit.js'
import { isObject } from './problems.js'
import { SERVER_NAME } from './recipe.js'
import { parseToml } from './toml-edit.js'
import { removeTomlTable } from './toml-remove.js'
import type { AdoptClient, AdoptedServer, Adoption } from './adoption-record.js'

export interface AdoptPlan {
  files: ConfigFile[]
  adoption: Adoption
  /** servers left in the client, each with why */
  left: { name: string; why: string }[]
}

/** Where the scope's servers are: the file and the path of its servers object. */
export function scopeServers(client: AdoptClient, scope: ClaudeScope, location: ClaudeLocation): { file: string; path: JsonPath } {
  if (client === 'codex') return { file: codexConfigPath(location), path: ['mcp_servers'] }
  const files = claudeFiles(location)
  if (scope === 'user') return { file: files.state, path: ['mcpServers'] }
  if (scope === 'local') return { file: files.state, path: ['projects', files.project, 'mcpServers'] }
  return { file: files.mcpJson, path: ['mcpServers'] }
}

const CODEX_VARIABLES = ['env_vars', 'bearer_token_env_var', 'env_http_headers']

/** The entry as dsh's server config, or why it stays in the client. */
function convert(client: AdoptClient, entry: unknown): ServerConfig | string {
  if (client === 'claude-code' && /\$\{/.test(JSON.stringify(entry))) return 'it refers to a variable (${…}), which dsh\'s servers do not expand; put the value in dsh.yml by hand to move it'
  if (client === 'codex' && isObject(entry)) {
    const used = CODEX_VARIABLES.filter((key) => entry[key] !== undefined)
    if (used.length > 0) return `it takes variables by name (${used.join(', ')}), which dsh's servers do not; put the values in dsh.yml by hand to move it`
  }
  try {
    const config = client === 'codex' ? codexServerConfig(entry, {}) : claudeServerConfig(entry, {})
    return config ?? 'it is switched off (enabled = false)'
  } catch (error) {
    if (error instanceof EntryProblem) return error.message
    throw error
  }
}

/**
 * The plan, over `pending` (the files setup itself changes: this starts from their `after`).
 * `initText` is the dsh.yml `dsh init` writes, for a project that has none.
 */
export async function adoptPlan(client: AdoptClient, scope: ClaudeScope, location: ClaudeLocation, pending: readonly ConfigFile[], initText: () => Promise<string>): Promise<AdoptPlan> {
  const project = claudeFiles(location).project
  const start = (path: string, newMode?: number): ConfigFile => {
    const planned = pending.find((f) => f.path === path)
    if (planned) return { ...planned }
    const before = readForEdit(path)
    return { path, before, after: before ?? '', ...(newMode !== undefined ? { newMode } : {}) }
  }
  const { file, path } = scopeServers(client, scope, location)
  const source = start(file, 0o600)
  const ymlFile = start(join(project, 'dsh.yml'))
  const left: AdoptPlan['left'] = []
  const adopted: AdoptedServer[] = []

  let entries: [string, unknown][]
  if (client === 'codex') {
    const doc = parseToml(source.after, file)
    entries = isObject(doc.mcp_servers) ? Object.entries(doc.mcp_servers) : []
  } else {
    const json = new JsonEdit(source.after === '' ? undefined : source.after, file)
    const servers = getPath(json.value, path)
    entries = isObject(servers) ? Object.entries(servers) : []
  }
  entries = entries.filter(([name]) => name !== SERVER_NAME)
  if (entries.length === 0) return { files: [], adoption: { client, scope, files: [], servers: [] }, left }

  const yml = new DshYml(ymlFile.after === '' ? await initText() : ymlFile.after, ymlFile.path)
  const inYml = yml.servers()
  let text = source.after
  for (const [name, entry] of entries) {
    const config = convert(client, entry)
    if (typeof config === 'string') {
      left.push({ name, why: config })
      continue
    }
    if (Object.hasOwn(inYml, name) && !isDeepStrictEqual(inYml[name], JSON.parse(JSON.stringify(config)))) {
      left.push({ name, why: `${ymlFile.path} already has a server ${JSON.stringify(name)} with another config` })
      continue
    }
    yml.set(name, config)
    if (client === 'codex') {
      text = removeTomlTable(text, ['mcp_servers', name], file)
    } else {
      const json = new JsonEdit(text, file)
      json.remove([...path, name])
      text = json.text
    }
    adopted.push({ name, file, path: client === 'codex' ? ['mcp_servers', name] : [...path, name], entry })
  }
  if (adopted.length === 0) return { files: [], adoption: { client, scope, files: [], servers: [] }, left }
  const files = [{ ...source, after: text }, { ...ymlFile, after: yml.text }]
  // what restore puts back: each file as it was just before this adoption (setup's own change kept)
  const adoption: Adoption = { client, scope, servers: adopted, files: files.map((f) => ({ path: f.path, before: pending.find((p) => p.path === f.path)?.after ?? f.before, after: f.after })) }
  return { files, adoption, left }
}
