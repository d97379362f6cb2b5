/**
 * `dsh mcp`'s limits: the `mcp` section of dsh.yml (options.ts describes each
 * key), with its defaults. Read once when the server starts.
 */

export interface McpLimits {
  /** the largest message read from the client, in bytes */
  maxMessageBytes: number
  /** tool calls running at once */
  maxConcurrentCalls: number
  /** requests unanswered plus answers unflushed, in bytes, before stdin is paused */
  maxBytesInFlight: number
  /** how long the shutdown waits for the last spans (`--otel`), in ms */
  otelFlushTimeoutMs: number
}

export const MCP_DEFAULTS: Readonly<McpLimits> = Object.freeze({
  // the SDK's own cap: a client that worked before still works
  maxMessageBytes: 10 * 1024 * 1024,
  maxConcurrentCalls: 16,
  maxBytesInFlight: 32 * 1024 * 1024,
  otelFlushTimeoutMs: 1000,
})

export function mcpLimits(section: Partial<McpLimits> | undefined): McpLimits {
  return { ...MCP_DEFAULTS, ...Object.fromEntries(Object.entries(section ?? {}).filter(([, v]) => v !== undefined)) }
}
