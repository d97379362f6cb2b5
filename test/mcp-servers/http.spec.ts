// A Streamable HTTP server (the official SDK's server transport, started by
// the test): reached only through the sandbox's network policy — refused with
// the network off, allowed when its host is listed, each connection recorded.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'
import { Context } from 'cordis'
import { SandboxService } from '@dsh/sandbox'
import { connect } from '../../plugins/mcp-servers/src/connect.js'
import { StderrTail } from '../../plugins/mcp-servers/src/stderr-tail.js'
import type { TestKernel } from 'dsh/testing'
import { eventually, kernelWith, stop, text, toolNames } from './helpers.js'

let k: TestKernel | undefined
let close: (() => void) | undefined
afterEach(async () => {
  if (k) await stop(k)
  k = undefined
  close?.()
  close = undefined
})

/** the events of the session mcp-servers records its HTTP servers' connections in */
const serverLog = (k: TestKernel) => k.ctx.sessions.list().filter((s) => s.id.startsWith('mcp-servers-')).flatMap((s) => s.events())

/** A stateless Streamable HTTP MCP server with one echo tool; counts the requests it got. */
async function httpServer(): Promise<{ url: string; requests: () => number }> {
  let requests = 0
  const server = http.createServer(async (req, res) => {
    requests++
    const mcp = new McpServer({ name: 'http-fixture', version: '1.0.0' })
    mcp.registerTool('echo', { description: 'Echo', inputSchema: { text: z.string() } }, async ({ text: t }) => ({ content: [{ type: 'text', text: `http:${t}` }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    res.on('close', () => {
      void transport.close()
      void mcp.close()
    })
    await mcp.connect(transport)
    let body = ''
    for await (const chunk of req) body += chunk
    await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  close = () => server.close()
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests: () => requests }
}

describe('mcp-servers: Streamable HTTP', () => {
  it('network off: the server is never contacted, and why is said', async () => {
    const upstream = await httpServer()
    k = await kernelWith({ servers: { web: { url: upstream.url } }, config: { maxFailures: 0 } })
    expect(toolNames(k)).toEqual([])
    expect(upstream.requests()).toBe(0)
    const refused = serverLog(k).filter((e) => e.type === 'sandbox/network')
    expect(refused[0]?.data).toMatchObject({ host: '127.0.0.1', allowed: false })
  })

  it('host listed in the network policy: the tools are served, each connection recorded', async () => {
    const upstream = await httpServer()
    k = await kernelWith({ sandbox: { network: { allow: ['127.0.0.1'] } }, servers: { web: { url: upstream.url } } })
    expect(await eventually(() => toolNames(k!).includes('mcp__web__echo'))).toBe(true)
    expect(text(await k.call('mcp__web__echo', { text: 'hi' }))).toBe('http:hi')
    const events = serverLog(k).filter((e) => e.type === 'sandbox/network')
    expect(events.length).toBeGreaterThan(0)
    expect(events.every((e) => (e.data as any).allowed)).toBe(true)
  })

  it('each request goes to the address the sandbox decided: a name only its lookup knows is served, never resolved again', async () => {
    const upstream = await httpServer()
    const port = new URL(upstream.url).port
    const asked: string[] = []
    // the only resolver that knows the name (the host's answers ENOTFOUND for .invalid)
    const lookup = (name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      asked.push(name)
      if (name !== 'mcp-upstream.invalid') return callback(Object.assign(new Error(`no ${name}`), { code: 'ENOTFOUND' }))
      return options?.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)
    }
    // (a kernel's sandbox takes no lookup from its options: the plugin's connect() on a real SandboxService given one)
    const sandbox = new SandboxService(new Context(), { network: { allow: ['local:mcp-upstream.invalid'] }, lookup: lookup as any })
    const lines: Array<{ type: string; data: any }> = []
    const connection = await connect('web', { url: `http://mcp-upstream.invalid:${port}/mcp` }, {
      sandbox, workspace: process.cwd(), mode: 'read-only', initializeTimeoutMs: 5000, maxMessageBytes: 1 << 20, stderr: new StderrTail(1024),
      recorder: () => ({ session: { write: (type: string, data: any) => void lines.push({ type, data }) } as any, callId: 'test' }),
    })
    try {
      expect(connection.tools.map((t) => t.name)).toEqual(['echo'])
      const r = await connection.client.callTool({ name: 'echo', arguments: { text: 'pinned' } })
      expect((r.content as any)[0].text).toBe('http:pinned')
    } finally {
      await connection.client.close()
      connection.end?.()
    }
    const decided = lines.filter((l) => l.type === 'sandbox/network')
    // one decision per request (initialize, initialized, tools/list, the call at least), each recorded with the address used
    expect(decided.length).toBeGreaterThanOrEqual(4)
    expect(decided.every((l) => l.data.allowed && l.data.address === '127.0.0.1' && l.data.host === 'mcp-upstream.invalid')).toBe(true)
    expect(asked).toEqual(decided.map(() => 'mcp-upstream.invalid'))
    expect(upstream.requests()).toBe(decided.length)
  })

  it('a redirect is refused: the policy decided the first host only', async () => {
    let hits = 0
    const server = http.createServer((req, res) => {
      hits++
      res.writeHead(307, { location: 'http://127.0.0.2:9/mcp' }).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    close = () => server.close()
    const exited: Array<{ reason: string }> = []
    k = await kernelWith({ servers: {} })
    k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
    await k.reload({ ...k.options, sandbox: { network: { allow: ['127.0.0.1'] } }, plugins: { 'mcp-servers': { servers: { web: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` } }, maxFailures: 0 } } } as any)
    expect(await eventually(() => exited.length === 1)).toBe(true)
    expect(exited[0]!.reason).toMatch(/answered 307, a redirect to http:\/\/127\.0\.0\.2:9\/mcp; redirects are refused/)
    expect(hits).toBe(1)
  })
})
