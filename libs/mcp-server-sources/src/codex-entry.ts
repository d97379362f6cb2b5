/**
 * One Codex `[mcp_servers.<name>]` table as dsh's server config. Codex expands no `${VAR}` in
 * its values; it takes variables by name instead: `env_vars` (forwarded from its own
 * environment when set), `bearer_token_env_var` (`Authorization: Bearer <value>`, an error when
 * unset), `env_http_headers` (a header from a variable, left out when unset). `enabled = false`
 * leaves the server out (as Codex does). A tool filter (`enabled_tools`, `disabled_tools`) is a
 * problem: dsh would offer tools the user switched off, so the server is left out.
 */
import { EntryProblem, isObject, stringAt, stringMapAt, stringsAt } from './check.js'
import type { ServerConfig } from './types.js'

type Env = Record<string, string | undefined>

/** The server's config; undefined when Codex itself leaves it out (`enabled = false`). */
export function codexServerConfig(entry: unknown, env: Env): ServerConfig | undefined {
  if (!isObject(entry)) throw new EntryProblem(`is not a table (${JSON.stringify(entry)})`)
  if (entry.enabled === false) return undefined
  for (const key of ['enabled_tools', 'disabled_tools']) {
    if (entry[key] !== undefined) throw new EntryProblem(`has ${key}, a tool filter dsh's servers do not carry: list the tools to leave out in mcp-servers' exclude and set the server in its servers`)
  }
  const has = (key: string) => Object.hasOwn(entry, key)
  if (has('command') && has('url')) throw new EntryProblem('has both command and url: Codex reads one transport')
  if (has('url')) {
    if (has('bearer_token')) throw new EntryProblem('has bearer_token, which Codex refuses in config.toml: name a variable in bearer_token_env_var')
    const url = stringAt(entry.url, 'url')
    const headers: Record<string, string> = { ...stringMapAt(entry.http_headers, 'http_headers') }
    for (const [header, name] of Object.entries(stringMapAt(entry.env_http_headers, 'env_http_headers') ?? {})) {
      const value = env[name]
      if (value !== undefined && value !== '') headers[header] = value
    }
    if (entry.bearer_token_env_var !== undefined) {
      const name = stringAt(entry.bearer_token_env_var, 'bearer_token_env_var')
      const token = env[name]
      if (token === undefined || token === '') throw new EntryProblem(`bearer_token_env_var names ${name}, which is not set`)
      headers.Authorization = `Bearer ${token}`
    }
    return { url, ...(Object.keys(headers).length > 0 ? { headers } : {}) }
  }
  if (!has('command')) throw new EntryProblem('has neither command (a stdio server) nor url (a Streamable HTTP server)')
  const command = stringAt(entry.command, 'command')
  const args = stringsAt(entry.args, 'args')
  const vars: Record<string, string> = {}
  for (const name of stringsAt(entry.env_vars, 'env_vars') ?? []) {
    const value = env[name]
    if (value !== undefined) vars[name] = value
  }
  Object.assign(vars, stringMapAt(entry.env, 'env'))
  const cwd = entry.cwd === undefined ? undefined : stringAt(entry.cwd, 'cwd')
  return { command, ...(args ? { args } : {}), ...(Object.keys(vars).length > 0 ? { env: vars } : {}), ...(cwd ? { cwd } : {}) }
}
