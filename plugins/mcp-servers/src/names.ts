/**
 * The dsh name of an upstream tool: `mcp__<server>__<tool>`, Claude Code's
 * name for it, so permission rules and hook matchers written for Claude Code
 * apply unchanged. A name that cannot be a dsh tool name is refused with the
 * reason (the tool is skipped), never rewritten: a rewritten name would not
 * be the one the rules name.
 */
const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/
const PART = /^[a-zA-Z0-9_-]+$/

/** Why a server name is unusable, or undefined. */
export function serverNameProblem(server: string): string | undefined {
  if (!PART.test(server)) return 'a server name may hold only letters, digits, "_" and "-"'
  if (server.includes('__')) return 'a server name may not contain "__" (it separates the server from the tool in mcp__<server>__<tool>)'
  if (`mcp__${server}__x`.length > 64) return 'a server name this long leaves no room for tool names (a dsh tool name has at most 64 characters)'
  return undefined
}

export function toolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`
}

/** Why an upstream tool name cannot become a dsh tool, or undefined. */
export function toolNameProblem(server: string, tool: unknown): string | undefined {
  if (typeof tool !== 'string' || tool === '') return 'its name is not a non-empty string'
  if (!PART.test(tool)) return `its name ${JSON.stringify(tool.slice(0, 80))} holds characters a dsh tool name cannot (letters, digits, "_" and "-" only)`
  const name = toolName(server, tool)
  if (!TOOL_NAME.test(name)) return `${name} is longer than the 64 characters of a dsh tool name`
  return undefined
}
