// Upstream tools as dsh tools: named mcp__<server>__<tool>, with the upstream
// schema, annotations and output schema, results with content and value, each
// call in the session log with the sandbox that confined the server.
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { fixtureServer, kernelWith, text, toolNames } from './helpers.js'

let k: TestKernel | undefined

describe('mcp-servers: calls', () => {
  it('registers each upstream tool as mcp__<server>__<tool> with its metadata', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    expect(toolNames(k)).toContain('mcp__fix__echo')
    const echo = k.ctx.tools.get('mcp__fix__echo')!
    expect(echo.title).toBe('Echo')
    expect(echo.description).toBe('Echo the text back')
    expect(echo.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(echo.parameters.properties.text).toMatchObject({ type: 'string' })
    expect(echo.outputSchema?.properties?.echoed).toMatchObject({ type: 'string' })
  })

  it('calls through the pipeline: content and structuredContent as value, audited', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    const r = await k.call('mcp__fix__echo', { text: 'hello' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('hello')
    expect(r.value).toEqual({ echoed: 'hello' })
    const events = k.session.events().filter((e) => (e.data as any).callId === r.callId)
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect((events[1]!.data as any).mcpServer).toBe('fix')
    expect((events[1]!.data as any).sandbox.backend).not.toBe('none')
  })

  it('validates arguments against the upstream schema before the server sees them', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    const r = await k.call('mcp__fix__echo', { text: 5 })
    expect(r.error?.code).toBe('INVALID_ARGS')
  })

  it('an upstream isError result is an error result with the server\'s text', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    const r = await k.call('mcp__fix__read_file', { path: '/no/such/file' })
    expect(r.isError).toBe(true)
    expect(r.error?.code).toBe('TOOL_FAILED')
    expect(r.error?.message).toContain('ENOENT')
  })

  it('the server\'s environment is fixed: nothing of the host\'s, its own env added', async () => {
    process.env.DSH_MCP_HOST_SECRET = 'host-secret'
    try {
      k = await kernelWith({ servers: { fix: fixtureServer({ env: { SERVER_TOKEN: 'tok-123' } }) } })
      const env = JSON.parse(text(await k.call('mcp__fix__env', {})))
      expect(env.SERVER_TOKEN).toBe('tok-123')
      expect(env.DSH_MCP_HOST_SECRET).toBeUndefined()
      expect(env.HOME).toBe(k.dir)
    } finally {
      delete process.env.DSH_MCP_HOST_SECRET
    }
  })
})
