import type { Readable, Writable } from 'node:stream'
import type { Kernel } from 'dsh'
import { createMcpServer, DshStdioTransport, MCP_SERVER_DEFAULTS, type DshMcpServer } from '@dsh/mcp'

/** The kernel's tools served on a pair of streams (a process's stdin and stdout). */
export async function serve(kernel: Kernel, input: Readable, output: Writable): Promise<DshMcpServer> {
  const server = createMcpServer(kernel)
  await server.connect(new DshStdioTransport(input, output, MCP_SERVER_DEFAULTS))
  // at the end of the connection: await server.close('stdin closed'), then kernel.dispose()
  return server
}
