/**
 * `dsh mcp` end to end: the official MCP SDK client spawns the real CLI.
 * Native and code modes, results, cancellation and scheduling by concurrency
 * class. (Approval: mcp-approval.spec.ts; --watch: mcp-watch.spec.ts; the
 * process — stdout, shutdown, usage: mcp-process.spec.ts.)
 */
import { describe, expect, it } from 'vitest'
import { errorCode, fixture, mcpServers, text } from './mcp-helpers.js'

const open = mcpServers()

const native = {
  plugins: {
    [fixture('echo-tool.mjs')]: { prefix: 'echo:' },
    [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: '^rm ' },
    [fixture('ask-tool.mjs')]: {},
  },
}

const start = (config: object) => open(config)

describe('dsh mcp: native mode', () => {
  it('lists the wire tool set with its input schemas', async () => {
    const { client } = await start(native)
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_me', 'echo'])
    const echo = tools.find((t) => t.name === 'echo')!
    expect(echo).toEqual({ name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } })
  })

  it('runs a call through the pipeline in the connection session, callId from the request id', async () => {
    const { ws, client } = await start(native)
    const result = await client.callTool({ name: 'echo', arguments: { command: 'hi' } })
    expect(result).toEqual({ content: [{ type: 'text', text: 'echo:hi' }], isError: false })
    const call = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.name === 'echo', 'the echo result')
    expect(call.data.callId).toMatch(/^mcp-\d+$/)
    const events = ws.events()
    expect(events[0].type).toBe('turn/begin')
    expect(events.find((e) => e.type === 'mcp/connected')?.data).toEqual({ client: { name: 'dsh-e2e', version: '1.0.0' }, elicitation: false })
  })

  it('a guard denial is an error result with the DENIED text, audited', async () => {
    const { ws, client } = await start(native)
    const result = await client.callTool({ name: 'echo', arguments: { command: 'rm -rf /' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('matches ^rm (decided by guard #1 of plugin deny-pattern)')
    expect(errorCode(result)).toBe('DENIED')
    const logged = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.isError, 'the denial in the log')
    expect(logged.data.error.code).toBe('DENIED')
  })

  it('invalid arguments and unknown tools are error results, not protocol errors', async () => {
    const { client } = await start(native)
    const invalid = await client.callTool({ name: 'echo', arguments: { command: 42 } })
    expect(invalid.isError).toBe(true)
    expect(errorCode(invalid)).toBe('INVALID_ARGS')
    expect(text(invalid)).toMatch(/command/)
    const unknown = await client.callTool({ name: 'nope', arguments: {} })
    expect(errorCode(unknown)).toBe('UNKNOWN_TOOL')
    const proto = await client.callTool({ name: '__proto__', arguments: {} })
    expect(errorCode(proto)).toBe('UNKNOWN_TOOL')
  })

  it('a JSON-object value goes out as structuredContent; errors carry none', async () => {
    const { client } = await start({ plugins: { [fixture('concurrency-tools.mjs')]: {} } })
    const result = await client.callTool({ name: 'excl', arguments: { ms: 1 } })
    expect(result.structuredContent).toEqual({ max: 1 })
    expect(text(result)).toBe('{"max":1}')
    const failed = await client.callTool({ name: 'par', arguments: {} })
    expect(failed.isError).toBe(true)
    expect(failed.structuredContent).toBeUndefined()
  })
})

describe('dsh mcp: code mode', () => {
  it('lists only run_code and refuses a model-direct native call with UNKNOWN_TOOL before any gate', async () => {
    const { ws, client } = await start({ tools: { mode: 'code' }, ...native })
    const names = (await client.listTools()).tools.map((t) => t.name)
    // run_code is listed once the code runtime registers the transport; no native tool ever is
    expect(names.filter((n) => n !== 'run_code')).toEqual([])
    const direct = await client.callTool({ name: 'echo', arguments: { command: 'rm -rf /' } })
    expect(errorCode(direct)).toBe('UNKNOWN_TOOL')
    // collapsed in prepare: the guard never saw it, so the result is not its DENIED
    const logged = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.name === 'echo', 'the refused call in the log')
    expect(logged.data.error.code).toBe('UNKNOWN_TOOL')
    if (names.includes('run_code')) {
      const run = await client.callTool({ name: 'run_code', arguments: { code: 'return await tools.echo({ command: "x" })' } })
      expect(run.isError).toBe(false)
      expect(text(run)).toContain('echo:x')
    }
  })
})

describe('dsh mcp: cancellation', () => {
  it('the client cancelling a running call aborts it: the body sees the abort, the log ends ABORTED', async () => {
    const { ws, client } = await start({ plugins: { [fixture('slow-tool.mjs')]: {} } })
    const controller = new AbortController()
    const pending = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal })
    const started = await ws.waitForEvent((e) => e.type === 'slow/started', 'the slow body to start')
    controller.abort(new Error('the test cancels'))
    await expect(pending).rejects.toThrow()
    const result = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.callId === started.data.callId, 'the slow result')
    expect(result.data.error.code).toBe('ABORTED')
    const aborted = ws.events().find((e) => e.type === 'slow/aborted')
    expect(aborted?.data.callId).toBe(started.data.callId)
    expect(aborted!.seq).toBeLessThan(result.seq)
    // the connection is still usable
    expect((await client.callTool({ name: 'slow', arguments: { ms: 1 } })).isError).toBe(false)
  })

  it('a call cancelled while it waits for an exclusive one ends ABORTED_BEFORE_DISPATCH and its body never runs', async () => {
    const { ws, client } = await start({ plugins: { [fixture('slow-tool.mjs')]: {} } })
    const first = new AbortController()
    const second = new AbortController()
    const a = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: first.signal })
    const started = await ws.waitForEvent((e) => e.type === 'slow/started', 'the first body to start')
    const b = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: second.signal })
    // the second waits in the scheduler behind the exclusive first
    second.abort()
    await expect(b).rejects.toThrow()
    first.abort()
    await expect(a).rejects.toThrow()
    const results = await ws.waitForEvent((e) => e.type === 'tool/result' && e.data.callId !== started.data.callId, 'the second result')
    expect(results.data.error.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(ws.events().filter((e) => e.type === 'slow/started')).toHaveLength(1)
    expect(ws.events().find((e) => e.type === 'tool/result' && e.data.callId === started.data.callId)?.data.error.code).toBe('ABORTED')
  })
})

describe('dsh mcp: scheduling by concurrency class', () => {
  it('parallel calls run together', async () => {
    const { client } = await start({ plugins: { [fixture('concurrency-tools.mjs')]: {} } })
    const results = await Promise.all([1, 2, 3].map(() => client.callTool({ name: 'par', arguments: { expect: 3 } })))
    expect(results.map((r) => r.structuredContent)).toEqual([{ max: 3 }, { max: 3 }, { max: 3 }])
  })

  it('exclusive calls run alone, also among parallel ones', async () => {
    const { client } = await start({ plugins: { [fixture('concurrency-tools.mjs')]: {} } })
    const calls = [
      client.callTool({ name: 'excl', arguments: { ms: 50 } }),
      client.callTool({ name: 'par', arguments: { expect: 2, maxMs: 2000 } }),
      client.callTool({ name: 'par', arguments: { expect: 2, maxMs: 2000 } }),
      client.callTool({ name: 'excl', arguments: { ms: 50 } }),
      client.callTool({ name: 'excl', arguments: { ms: 50 } }),
    ]
    const [e1, p1, p2, e2, e3] = (await Promise.all(calls)).map((r) => r.structuredContent)
    expect([e1, e2, e3]).toEqual([{ max: 1 }, { max: 1 }, { max: 1 }])
    expect([p1, p2]).toEqual([{ max: 2 }, { max: 2 }])
  })
})
