/**
 * The `mcpServers` objects of a Claude Code JSON file (`.mcp.json`, `~/.claude.json`), read with
 * jsonc-parser's syntax tree so that each server keeps the line it starts on. Strict JSON as
 * Claude Code reads it: a comment or trailing comma is a problem naming its line.
 */
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser'
import { lineAt } from './read-file.js'
import type { RawServer, SourceName, SourceProblem } from './types.js'

/** The parsed tree, or undefined (with a problem) when the text is not one JSON object. */
export function jsonTree(source: SourceName, file: string, text: string, problems: SourceProblem[]): Node | undefined {
  if (text.trim() === '') return undefined
  const errors: ParseError[] = []
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false })
  if (errors.length > 0) {
    const first = errors[0]!
    problems.push({ source, file, line: lineAt(text, first.offset), message: `not valid JSON (${printParseErrorCode(first.error)}); none of its servers are used` })
    return undefined
  }
  if (!tree || tree.type !== 'object') {
    problems.push({ source, file, line: 1, message: 'expected a JSON object at the top; none of its servers are used' })
    return undefined
  }
  return tree
}

/** The servers of the object at `path` (`['mcpServers']`, `['projects', dir, 'mcpServers']`), each with its line. */
export function serversAt(source: SourceName, file: string, text: string, tree: Node, path: string[], problems: SourceProblem[]): RawServer[] {
  const node = findNodeAtLocation(tree, path)
  if (!node) return []
  if (node.type !== 'object') {
    problems.push({ source, file, line: lineAt(text, node.offset), message: `${path.join('.')} is not an object; its servers are left out` })
    return []
  }
  const out: RawServer[] = []
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? []
    if (!key || !value) continue
    out.push({ name: String(key.value), entry: getNodeValue(value), file, line: lineAt(text, property.offset) })
  }
  return out
}
