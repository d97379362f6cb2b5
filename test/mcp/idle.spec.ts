/**
 * `tools/idle` from the MCP server (idle-signal.ts): told once the kernel is up and the client has
 * listed the tools, before any call; `idle()` turns false once a call arrives; not told when the
 * first call came first, nor to a client that never lists; a listener that throws costs the call
 * nothing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { createMcpServer, type DshMcpServer, type EarlyAnswer } from '@dsh/mcp'

let kernel: TestKernel | undefined
const servers: DshMcpServer[] = []

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close('test over')
  await kernel?.cleanup()
  kernel = undefined
})

/** a few turns of the event loop: the signal is sent on the turn after the answer */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

async function idleKernel() {
  const k = await createTestKernel()
  const told: (() => boolean)[] = []
  k.ctx.plugin({
    name: 'echo-and-listen',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register(testTool('echo', () => 'echoed'))
      ctx.on('tools/idle', (idle) => void told.push(idle))
    },
  })
  await k.ctx.lifecycle.flush()
  return { k, told }
}

async function connect(starting: TestKernel | Promise<TestKernel>, options: { early?: EarlyAnswer; log?: (line: string) => void } = {}) {
  const server = createMcpServer(starting, { log: () => {}, ...options })
  servers.push(server)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'in-process', version: '0' })
  await client.connect(clientSide)
  return { server, client }
}

describe('tools/idle', () => {
  it('is told once after tools/list, before any call; idle() turns false when a call arrives', async () => {
    const { k, told } = await idleKernel()
    kernel = k
    const { client } = await connect(k)
    await turns()
    expect(told).toHaveLength(0)
    await client.listTools()
    await turns()
    expect(told).toHaveLength(1)
    expect(told[0]()).toBe(true)
    await client.listTools()
    await turns()
    expect(told).toHaveLength(1)
    const result = await client.callTool({ name: 'echo', arguments: {} })
    expect(result.isError).toBe(false)
    expect(told[0]()).toBe(false)
  })

  it('is not told when the first call arrived before the kernel was up (tools/list answered from the snapshot)', async () => {
    const { k, told } = await idleKernel()
    kernel = k
    let start!: (kernel: TestKernel) => void
    const starting = new Promise<TestKernel>((resolve) => (start = resolve))
    const early: EarlyAnswer = { instructions: '', tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }
    const { client } = await connect(starting, { early })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo'])
    const call = client.callTool({ name: 'echo', arguments: {} })
    await turns()
    start(k)
    expect((await call).isError).toBe(false)
    await turns()
    expect(told).toHaveLength(0)
  })

  it('is not told to a client that never lists the tools', async () => {
    const { k, told } = await idleKernel()
    kernel = k
    const { client } = await connect(k)
    await client.ping()
    await turns()
    expect(told).toHaveLength(0)
  })

  it('a listener that throws is logged; the call after it runs as before', async () => {
    const { k, told } = await idleKernel()
    kernel = k
    k.ctx.plugin({ name: 'throws', apply: (ctx) => void ctx.on('tools/idle', () => { throw new Error('warm-up broke') }) })
    await k.ctx.lifecycle.flush()
    const logged: string[] = []
    const { client } = await connect(k, { log: (line) => void logged.push(line) })
    await client.listTools()
    await turns()
    expect(logged.some((line) => line.includes('tools/idle') && line.includes('warm-up broke'))).toBe(true)
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echoed' }])
    expect(told.length).toBeLessThanOrEqual(1)
  })
})
