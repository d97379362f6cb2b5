/**
 * The server's and the transport's limits with their defaults: what `dsh mcp` reads from the
 * `mcp` section of dsh.yml. Its own entry (`@dsh/mcp/limits`), so a config reader gets the
 * defaults without loading the MCP SDK.
 */

export interface McpServerLimits {
  /** the largest message read from the client, in bytes */
  maxMessageBytes: number
  /** tool calls running at once */
  maxConcurrentCalls: number
  /** requests unanswered plus answers unflushed, in bytes, before stdin is paused */
  maxBytesInFlight: number
}

export const MCP_SERVER_DEFAULTS: Readonly<McpServerLimits> = Object.freeze({
  // the SDK's own cap: a client that worked before still works
  maxMessageBytes: 10 * 1024 * 1024,
  maxConcurrentCalls: 16,
  maxBytesInFlight: 32 * 1024 * 1024,
})
