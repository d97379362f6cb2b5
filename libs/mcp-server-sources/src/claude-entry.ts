/**
 * One Claude Code server entry (`.mcp.json` or `~/.claude.json`) as dsh's server config:
 * `type: "stdio"` (or no type) with `command`, `args`, `env`; `type: "http"` with `url` and
 * `headers`; variables expanded as Claude Code does. What dsh cannot serve is a problem naming
 * it: `type: "sse"` (the deprecated HTTP+SSE transport), any other type, a `headersHelper` (a
 * command Claude Code runs for headers), and an entry of neither shape.
 */
import { expandClaudeVariables } from './claude-expand.js'
import { EntryProblem, isObject, stringAt, stringMapAt, stringsAt } from './check.js'
import type { ServerConfig } from './types.js'

type Env = Record<string, string | undefined>

function expandMap(map: Record<string, string> | undefined, env: Env, at: string): Record<string, string> | undefined {
  if (!map) return undefined
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, expandClaudeVariables(value, env, `${at}.${key}`)]))
}

export function claudeServerConfig(entry: unknown, env: Env): ServerConfig {
  if (!isObject(entry)) throw new EntryProblem(`is not an object (${JSON.stringify(entry)})`)
  const type = entry.type
  if (type === 'sse') throw new EntryProblem('is an SSE server (type "sse"): dsh speaks stdio and Streamable HTTP only; if the server also serves Streamable HTTP, give its URL with type "http"')
  if (type !== undefined && type !== 'stdio' && type !== 'http') throw new EntryProblem(`has type ${JSON.stringify(type)}: dsh reads "stdio" and "http" servers only`)
  if (type === 'http' || (type === undefined && entry.url !== undefined && entry.command === undefined)) {
    if (type === undefined) throw new EntryProblem('has a url but no type: Claude Code reads a URL server only with type "http" (or "sse")')
    if (entry.headersHelper !== undefined) throw new EntryProblem('uses headersHelper (a command Claude Code runs for its headers), which dsh does not run: give the headers in headers')
    const url = expandClaudeVariables(stringAt(entry.url, 'url'), env, 'url')
    const headers = expandMap(stringMapAt(entry.headers, 'headers'), env, 'headers')
    return { url, ...(headers ? { headers } : {}) }
  }
  if (entry.command === undefined) throw new EntryProblem('has neither a command (a stdio server) nor type "http" with a url')
  const command = expandClaudeVariables(stringAt(entry.command, 'command'), env, 'command')
  const args = stringsAt(entry.args, 'args')?.map((arg, i) => expandClaudeVariables(arg, env, `args[${i}]`))
  const vars = expandMap(stringMapAt(entry.env, 'env'), env, 'env')
  return { command, ...(args ? { args } : {}), ...(vars && Object.keys(vars).length > 0 ? { env: vars } : {}) }
}
