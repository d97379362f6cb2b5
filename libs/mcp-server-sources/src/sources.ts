/**
 * Each source's server entries, unchecked, with file and line:
 * - `mcp.json`: the project's `.mcp.json` `mcpServers`;
 * - `claude-code`: `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`) — this project's
 *   `projects[<cwd>].mcpServers` (Claude Code's local scope) first, then the user's `mcpServers`;
 * - `codex`: `$CODEX_HOME/config.toml` (`~/.codex/config.toml`) `[mcp_servers.<name>]`.
 */
import { parse, TomlError } from 'smol-toml'
import { isObject } from './check.js'
import { jsonTree, serversAt } from './json-servers.js'
import { readSourceFile } from './read-file.js'
import type { SourceFiles } from './files.js'
import type { RawServer, SourceName, SourceProblem } from './types.js'

function mcpJson(files: SourceFiles, problems: SourceProblem[]): RawServer[] {
  const text = readSourceFile('mcp.json', files.mcpJson, problems)
  if (text === undefined) return []
  const tree = jsonTree('mcp.json', files.mcpJson, text, problems)
  return tree ? serversAt('mcp.json', files.mcpJson, text, tree, ['mcpServers'], problems) : []
}

function claudeCode(files: SourceFiles, problems: SourceProblem[]): RawServer[] {
  const file = files.claudeState
  const text = readSourceFile('claude-code', file, problems)
  if (text === undefined) return []
  const tree = jsonTree('claude-code', file, text, problems)
  if (!tree) return []
  // Claude Code's own order: local (this project's entry) over user
  return [...serversAt('claude-code', file, text, tree, ['projects', files.project, 'mcpServers'], problems), ...serversAt('claude-code', file, text, tree, ['mcpServers'], problems)]
}

const bare = /^[A-Za-z0-9_-]+$/

/** The line of `[mcp_servers.<name>]` (or of the first key under it). */
function tomlLine(text: string, name: string): number | undefined {
  const quoted = bare.test(name) ? `(?:${name}|"${name}"|'${name}')` : `(?:${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|'${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}')`
  const header = new RegExp(`^\\s*\\[\\s*mcp_servers\\s*\\.\\s*${quoted}\\s*[\\].]|^\\s*(?:mcp_servers\\s*\\.\\s*)?${quoted}\\s*[.=]`)
  const lines = text.split('\n')
  const at = lines.findIndex((line) => header.test(line))
  return at >= 0 ? at + 1 : undefined
}

function codex(files: SourceFiles, problems: SourceProblem[]): RawServer[] {
  const file = files.codexConfig
  const text = readSourceFile('codex', file, problems)
  if (text === undefined) return []
  let doc: Record<string, unknown>
  try {
    doc = parse(text) as Record<string, unknown>
  } catch (error) {
    const line = error instanceof TomlError ? error.line : undefined
    problems.push({ source: 'codex', file, ...(line ? { line } : {}), message: `not valid TOML (${(error as Error).message.split('\n')[0]}); none of its servers are used` })
    return []
  }
  const table = doc.mcp_servers
  if (table === undefined) return []
  if (!isObject(table)) {
    problems.push({ source: 'codex', file, message: 'mcp_servers is not a table; its servers are left out' })
    return []
  }
  return Object.entries(table).map(([name, entry]) => ({ name, entry, file, line: tomlLine(text, name) }))
}

export const SOURCE_READERS: Readonly<Record<SourceName, (files: SourceFiles, problems: SourceProblem[]) => RawServer[]>> = Object.freeze({
  'mcp.json': mcpJson,
  'claude-code': claudeCode,
  codex,
})
