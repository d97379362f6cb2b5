/**
 * `dsh mcp`'s limits: the `mcp` section of dsh.yml (options.ts describes each key), with its
 * defaults — the server's and the transport's (`@dsh/mcp/limits`) and the shutdown's. Read once
 * when the server starts.
 */
import { MCP_SERVER_DEFAULTS, type McpServerLimits } from '@dsh/mcp/limits'

export interface McpLimits extends McpServerLimits {
  /** how long the shutdown waits for the last spans (`--otel`), in ms */
  otelFlushTimeoutMs: number
}

export const MCP_DEFAULTS: Readonly<McpLimits> = Object.freeze({
  ...MCP_SERVER_DEFAULTS,
  otelFlushTimeoutMs: 1000,
})

export function mcpLimits(section: Partial<McpLimits> | undefined): McpLimits {
  return { ...MCP_DEFAULTS, ...Object.fromEntries(Object.entries(section ?? {}).filter(([, v]) => v !== undefined)) }
}
