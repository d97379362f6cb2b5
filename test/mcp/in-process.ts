/**
 * In-process MCP connections for the specs of @dsh/mcp: `createMcpServer` on a
 * test kernel over the SDK's in-memory transport, with a client that may
 * answer elicitations. Every server made here is closed after the test, then
 * every kernel made here cleaned up.
 */
import { afterEach } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { createMcpServer, type DshMcpServer } from '@dsh/mcp'

const servers: DshMcpServer[] = []
const kernels: TestKernel[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close('test over')
  for (const kernel of kernels.splice(0)) await kernel.cleanup()
})

/** A test kernel, cleaned up after the test. */
export async function testKernel(): Promise<TestKernel> {
  const kernel = await createTestKernel()
  kernels.push(kernel)
  return kernel
}

export interface ClientOptions {
  /** the client's answer to each elicitation; without it, the client has no elicitation capability */
  answer?: (params: ElicitRequest['params']) => ElicitResult
  /** every message the server sends is pushed here as the client receives it */
  sent?: JSONRPCMessage[]
}

/** A server on `k` and a client connected to it; `asked()` counts the elicitations the client answered. */
export async function connectClient(k: TestKernel, options: ClientOptions = {}) {
  const server = createMcpServer(k, { log: () => {} })
  servers.push(server)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const { answer, sent } = options
  if (sent) {
    const send = serverSide.send.bind(serverSide)
    serverSide.send = (message, opts) => (sent.push(message), send(message, opts))
  }
  await server.connect(serverSide)
  const client = new Client({ name: 'in-process', version: '0' }, { capabilities: answer ? { elicitation: { form: {} } } : {} })
  let asked = 0
  if (answer) client.setRequestHandler(ElicitRequestSchema, (request) => (asked++, answer(request.params)))
  await client.connect(clientSide)
  return { server, client, asked: () => asked }
}

/** A `guarded` tool whose every call the kernel asks approval for; `ran()` counts the calls that ran. */
export function needsApproval(k: TestKernel): { ran: () => number } {
  let ran = 0
  k.ctx.plugin({
    name: 'needs-approval',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register(testTool('guarded', () => (ran++, 'ran')))
      ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'guarded' ? { kind: 'ask', reason: 'test' } : next()))
    },
  })
  return { ran: () => ran }
}
