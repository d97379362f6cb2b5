/**
 * A wire schema as an MCP `Tool`: `title` at the top level (MCP's place for
 * it), `annotations` and `outputSchema` only when the tool declares them.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolSchema } from '@dsh/tools'

export function toMcpTool(schema: ToolSchema): Tool {
  const tool: Tool = { name: schema.name, description: schema.description, inputSchema: schema.parameters as Tool['inputSchema'] }
  if (schema.title !== undefined) tool.title = schema.title
  if (schema.annotations !== undefined) tool.annotations = { ...schema.annotations }
  if (schema.outputSchema !== undefined) tool.outputSchema = schema.outputSchema as Tool['outputSchema']
  return tool
}
