// A Streamable HTTP server (the official SDK's server transport, started by
// the test): reached only through the sandbox's network policy — refused with
// the network off, allowed when its host is listed, each connection recorded.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'
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
})
