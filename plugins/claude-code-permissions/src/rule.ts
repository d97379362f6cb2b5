/**
 * One permission rule as Claude Code writes it: `Tool` or `Tool(specifier)`.
 * `Bash(npm run test:*)`, `Read(./.env)`, `Edit(src/**)`,
 * `WebFetch(domain:github.com)`, `mcp__github`, `mcp__github__*`,
 * `mcp__github__create_issue`. `Tool(*)` is the bare tool. A rule that cannot
 * be read is refused with the reason; the caller adds the file and index.
 */
import { CLAUDE_TOOLS, type SpecifierKind } from './tool-kinds.js'

export type RuleList = 'allow' | 'ask' | 'deny'

export interface ParsedRule {
  /** the rule as written */
  text: string
  /** the tool name, or for MCP rules the `mcp__server` prefix */
  tool: string
  /** `mcp__server` / `mcp__server__*` match every tool of the server */
  mcpServer?: string
  kind: SpecifierKind
  /** absent: every use of the tool */
  specifier?: string
  /** a tool-name glob (`*`, `mcp__*`, `mcp__github__get_*`): the whole name it matches */
  toolGlob?: RegExp
  /** the glob starts with a literal `mcp__<server>__`: only then may it allow */
  anchored?: boolean
}

const SHAPE = /^([A-Za-z*][A-Za-z0-9_*-]*)(?:\(([\s\S]*)\))?$/
/** a glob allow rules may use: a literal `mcp__<server>__` before the first `*` */
const ANCHORED_GLOB = /^mcp__[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*__/
const MCP = /^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_*-]+))?$/

/** Parse a rule; a string is the reason it cannot be used. `extraTools` are names `toolNames` maps to. */
export function parseRule(text: unknown, extraTools: ReadonlySet<string>): ParsedRule | string {
  if (typeof text !== 'string') return `expected a rule string, got ${typeof text}`
  const trimmed = text.trim()
  const shape = SHAPE.exec(trimmed)
  if (!shape) return 'is not of the form Tool or Tool(specifier)'
  const [, tool, rawSpecifier] = shape
  if (rawSpecifier !== undefined && /[()]/.test(rawSpecifier) && !balanced(rawSpecifier)) return 'has unbalanced parentheses'
  const specifier = rawSpecifier === undefined || rawSpecifier === '*' ? undefined : rawSpecifier
  if (rawSpecifier !== undefined && rawSpecifier.trim() === '') return 'has an empty specifier'
  // `*`, `mcp__*`, `mcp__github__get_*`: a glob over the whole tool name (mcp__server and mcp__server__* stay server rules)
  if (tool.includes('*') && !/^mcp__[A-Za-z0-9_-]+?__\*$/.test(tool)) {
    if (specifier !== undefined) return 'a tool-name glob takes no specifier'
    const toolGlob = new RegExp(`^${tool.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')).join('.*')}$`)
    return { text, tool, kind: 'none', toolGlob, ...(ANCHORED_GLOB.test(tool) ? { anchored: true } : {}) }
  }

  if (tool.startsWith('mcp__')) {
    const mcp = MCP.exec(tool)
    if (!mcp) return 'is not an MCP name of the form mcp__server or mcp__server__tool'
    if (specifier !== undefined) return 'MCP rules take no specifier'
    const [, server, name] = mcp
    if (name === undefined || name === '*') return { text, tool: `mcp__${server}`, mcpServer: server, kind: 'none' }
    if (name.includes('*')) return 'MCP rules allow * only as the whole tool part (mcp__server__*)'
    return { text, tool, kind: 'none' }
  }
  const kind = CLAUDE_TOOLS.get(tool) ?? (extraTools.has(tool) ? 'none' : undefined)
  if (kind === undefined) return `names no Claude Code tool (${tool}) and no mcp__ tool`
  if (specifier === undefined) return { text, tool, kind }
  if (kind === 'domain') {
    const domain = /^domain:(.+)$/.exec(specifier)
    if (!domain) return 'WebFetch rules take domain:<host>'
    if (!/^(\*\.)?[A-Za-z0-9.-]+$|^\*$/.test(domain[1])) return `${JSON.stringify(domain[1])} is not a host name`
  }
  if (kind === 'path' && specifier.startsWith('!')) return 'a path specifier cannot be negated (!)'
  return { text, tool, kind, specifier }
}

function balanced(text: string): boolean {
  let depth = 0
  for (const char of text) {
    if (char === '(') depth++
    else if (char === ')' && --depth < 0) return false
  }
  return depth === 0
}
