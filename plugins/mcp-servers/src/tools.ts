/**
 * The dsh tool of one upstream tool: `mcp__<server>__<tool>` with the
 * upstream title, description, input schema, annotations and output schema,
 * its body a call to the server. Everything else (rules, hooks, approval,
 * guards, timeouts, spills, the session log) is the pipeline's, as for any
 * tool.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolAnnotations, ToolDefinition } from '@dsh/tools'
import { toolName } from './names.js'
import { toOutput } from './results.js'
import type { UpstreamServer } from './server.js'

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** Only the four boolean hints dsh knows; anything else a server sends is left out. */
function annotationsOf(tool: Tool): ToolAnnotations | undefined {
  const given = tool.annotations
  if (!given) return undefined
  const kept: ToolAnnotations = {}
  for (const hint of HINTS) if (typeof given[hint] === 'boolean') kept[hint] = given[hint]
  return Object.keys(kept).length ? kept : undefined
}

export function upstreamTool(server: UpstreamServer, tool: Tool, maxResultBytes: number): ToolDefinition {
  const title = tool.title ?? tool.annotations?.title
  const annotations = annotationsOf(tool)
  return {
    name: toolName(server.name, tool.name),
    ...(typeof title === 'string' && title ? { title } : {}),
    description: tool.description ?? `${tool.name} (MCP server ${server.name})`,
    parameters: tool.inputSchema,
    ...(annotations ? { annotations } : {}),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    // Why parallel: an MCP server serves concurrent requests; ordering is the server's business
    concurrency: 'parallel',
    async execute(args, call) {
      const result = await server.call(tool.name, args, call)
      // the sandbox that held the server while it answered, as bash records its own
      const sandbox = server.confinement
      call.record({ mcpServer: server.name, ...(sandbox ? { sandbox } : {}) })
      return toOutput(server.name, tool.name, result, maxResultBytes)
    },
  }
}
