/**
 * Removing one table of Codex's config.toml as text: its header line and every line up to the
 * next header that is not one of its sub-tables (`[mcp_servers.x]`, `[mcp_servers.x.env]`), so
 * every other byte stays. smol-toml checks the result: it must be the document before without
 * that table, or nothing is written.
 */
import { isDeepStrictEqual } from 'node:util'
import { parse } from 'smol-toml'
import { ConfigFileError } from './config-file.js'
import { parseToml, readKey } from './toml-edit.js'

function headerOf(line: string): string[] | undefined {
  if (!/^\s*\[[^[]/.test(line)) return undefined
  const key = readKey(line.replace(/^\s*\[/, ''))
  return key && /^\]\s*(#.*)?\r?$/.test(key.rest) ? key.parts : ['\u0000unreadable']
}

const under = (parts: readonly string[], table: readonly string[]) => parts.length >= table.length && table.every((p, i) => parts[i] === p)

/** `text` without the table at `table` (and its sub-tables). */
export function removeTomlTable(text: string, table: readonly string[], file: string): string {
  const before = parseToml(text, file)
  const lines = text.split('\n')
  const kept: string[] = []
  let inside = false
  for (const line of lines) {
    const header = headerOf(line)
    if (header) inside = under(header, table)
    if (!inside) kept.push(line)
  }
  // the blank line that separated the removed block from what came before it
  const after = kept.join('\n').replace(/\n(\r?\n)+$/, '\n')
  const expected = structuredClone(before) as Record<string, unknown>
  let parent: Record<string, unknown> = expected
  for (const key of table.slice(0, -1)) parent = (parent[key] ?? {}) as Record<string, unknown>
  delete parent[table[table.length - 1]!]
  let parsed: unknown
  try {
    parsed = parse(after)
  } catch {
    parsed = undefined
  }
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed ?? null)), JSON.parse(JSON.stringify(expected)))) throw new ConfigFileError(`${file}: cannot remove [${table.join('.')}] here without changing something else (it is written in a form dsh setup does not edit, such as an inline table or dotted keys); remove it by hand; nothing was written`)
  return after
}
