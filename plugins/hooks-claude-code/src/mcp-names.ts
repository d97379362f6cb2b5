/**
 * dsh's tools as a client that calls dsh over MCP names them: Claude Code
 * calls dsh's `bash` as `mcp__dsh__bash` (the server configured as `dsh`, as
 * `dsh setup` writes it). A hook written for that name applies to the tool
 * inside dsh too, beside one written for the built-in name the tool stands
 * in for (`Bash`). Such a hook then runs twice for a call from that client:
 * once in the client, on its call to dsh's tool, and once in dsh.
 */
import { CLAUDE_TOOL_NAMES } from '@dsh/claude-code-settings'
import { compileMatcher } from './matcher.js'

/** The MCP server name dsh is configured under (`dsh setup` writes it so). */
export const DSH_SERVER = 'dsh'

/** The name a client calling dsh over MCP gives dsh's tool `tool`. */
export function clientToolName(tool: string): string {
  return `mcp__${DSH_SERVER}__${tool}`
}

/** dsh's built-in tools, as an MCP client sees them: those with a Claude Code counterpart. */
export const DSH_TOOLS: readonly string[] = Object.freeze(Object.keys(CLAUDE_TOOL_NAMES))

/**
 * Whether a PreToolUse/PostToolUse hook with this matcher runs twice when a
 * client that reads the same settings (Claude Code) calls dsh's tools: it
 * matches a dsh tool by its `mcp__dsh__` name, so the client runs it on its
 * call and dsh runs it again inside the call. A matcher that cannot be read
 * is not one (it is refused where hooks are loaded).
 */
export function hookRunsTwice(matcher: string | undefined, tools: readonly string[] = DSH_TOOLS): boolean {
  const compiled = compileMatcher(matcher)
  if (typeof compiled === 'string') return false
  return tools.some((tool) => compiled(clientToolName(tool)))
}
