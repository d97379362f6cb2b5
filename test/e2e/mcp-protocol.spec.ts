/**
 * `dsh mcp` against a broken or hostile client, over the real process: a
 * message over the size cap is refused with its id and the server serves on
 * (the official SDK client, whose id comes last, and raw lines, whose id comes
 * first); every malformed request with an id gets JSON-RPC's error for it;
 * text that is not JSON gets -32700; malformed notifications get nothing; what
 * stderr says about them is short and rate-limited.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { fixture, mcpServers, text, Workspace } from './mcp-helpers.js'
import { rawServer } from './mcp-raw.js'

const start = mcpServers()
const echo = { plugins: { [fixture('echo-tool.mjs')]: { prefix: 'echo:' } } }

let ws: Workspace | undefined
afterEach(() => {
  ws?.cleanup()
  ws = undefined
})

describe('dsh mcp: a message over mcp.maxMessageBytes', () => {
  it('the official client: a 16 MB call is refused with -32600 on its own request, and the next call works', async () => {
    const { client, ws, conn } = await start(echo)
    const error = await client.callTool({ name: 'echo', arguments: { command: 'x'.repeat(16 * 1024 * 1024) } }).then(() => undefined, (e) => e)
    expect(error).toBeInstanceOf(McpError)
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(/over the limit of 10485760 \(mcp\.maxMessageBytes\)/)
    // still serving, the same session
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'after' } }))).toBe('echo:after')
    const calls = ws.events().filter((e) => e.type === 'tool/call')
    expect(calls.map((e) => e.data.arguments.command)).toEqual(['after'])
    expect(ws.events().some((e) => e.type === 'mcp/closed')).toBe(false)
    // one short line about it, not the message
    const refused = conn.stderr.text.split('\n').filter((l) => l.includes('refused a message'))
    expect(refused).toHaveLength(1)
    expect(refused[0]!.length).toBeLessThan(300)
  })

  it('raw: the id is recovered whether it comes first or last; an unreadable one is answered with id null', async () => {
    ws = new Workspace({ ...echo, mcp: { maxMessageBytes: 64 * 1024 } })
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    const big = 'y'.repeat(200 * 1024)
    server.line(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"command":"${big}","id":99}}}`)
    server.line(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"id":98,"command":"${big}"}},"id":"last"}`)
    // an id inside a string, escaped quotes around it: still the top-level one
    server.line(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"command":"\\"id\\":5 ${big}"}},"id":8}`)
    server.line(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"command":"${big}"}},"id":{"nested":1}}`)
    server.send({ id: 9, method: 'tools/call', params: { name: 'echo', arguments: { command: 'small' } } })
    expect((await server.reply(7)).error.code).toBe(-32600)
    expect((await server.reply('last')).error.code).toBe(-32600)
    expect((await server.reply(8)).error.code).toBe(-32600)
    expect((await server.reply(null)).error).toMatchObject({ code: -32600, message: expect.stringContaining('mcp.maxMessageBytes') })
    expect((await server.reply(9)).result.content).toEqual([{ type: 'text', text: 'echo:small' }])
    // nothing answered twice, no stray ids
    expect(server.messages().filter((m) => m.id === 98 || m.id === 99 || m.id === 5)).toEqual([])
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  })
})

describe('dsh mcp: every malformed request is answered', () => {
  const shapes: Array<[string, string, number]> = [
    ['params: "x"', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}', -32600],
    ['params: 5', '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":5}', -32600],
    ['_meta: "x"', '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":"x"}}', -32602],
    ['_meta.progressToken: {}', '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":{}}}}', -32602],
    ['_meta.progressToken: 1.5', '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":1.5}}}', -32602],
    ['a top-level __proto__', '{"jsonrpc":"2.0","id":6,"method":"tools/list","__proto__":{"polluted":true}}', -32600],
    ['__proto__ in params', '{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"__proto__":{"polluted":true}}}', -32602],
    ['an unknown top-level member', '{"jsonrpc":"2.0","id":8,"method":"tools/list","extra":1}', -32600],
    ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":9,"method":"tools/list"}', -32600],
    ['no jsonrpc', '{"id":10,"method":"tools/list"}', -32600],
    ['method: 5', '{"jsonrpc":"2.0","id":11,"method":5}', -32600],
    ['params as an array', '{"jsonrpc":"2.0","id":12,"method":"tools/list","params":[]}', -32602],
    ['tools/call without a name', '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{}}}', -32602],
    ['a string id', '{"jsonrpc":"2.0","id":"s-14","method":"tools/call","params":"x"}', -32600],
  ]

  it('each shape gets its JSON-RPC error with its id; the server serves on', async () => {
    ws = new Workspace(echo)
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    for (const [, line] of shapes) server.line(line)
    for (const [what, line, code] of shapes) {
      const id = JSON.parse(line).id
      const answer = await server.reply(id, `the answer to ${what}`)
      expect(answer.error?.code, what).toBe(code)
      expect(answer.error.message.length, what).toBeLessThan(300)
    }
    // nothing reached the prototype chain of the process (it would show in a tool's answer if it had)
    server.send({ id: 99, method: 'tools/call', params: { name: 'echo', arguments: { command: 'ok' } } })
    expect((await server.reply(99)).result.content).toEqual([{ type: 'text', text: 'echo:ok' }])
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  })

  it('text that is not JSON, an array and an id of the wrong type get -32700 / -32600 with id null; malformed notifications get nothing', async () => {
    ws = new Workspace(echo)
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    server.line('{not json')
    server.line('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]')
    server.line('{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}')
    server.line('"just a string"')
    // notifications: never answered, even malformed
    server.line('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}')
    server.line('{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":"x"}}')
    // the answers to the lines before come before this one's: they are written as each line is read
    server.send({ id: 'after', method: 'ping' })
    await server.reply('after')
    const nulls = server.messages().filter((m) => m.id === null)
    expect(nulls.map((m) => m.error.code)).toEqual([-32700, -32600, -32600, -32600])
    expect(nulls[0].error.message).toMatch(/^Parse error: /)
    expect(nulls[0].error.message).not.toContain('not json')
    // one answer for each of the four lines and the ping (and the initialize): the notifications got none
    expect(server.messages().filter((m) => 'error' in m || 'result' in m)).toHaveLength(6)
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  })

  it('stderr says one short line per refused message, at most 5 in 10 s, then how many were left out', async () => {
    ws = new Workspace(echo)
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    for (let i = 0; i < 50; i++) server.line(`{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":"${'z'.repeat(5000)}"}`)
    await server.reply(49)
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
    const lines = server.stderr().split('\n')
    const refused = lines.filter((l) => l.includes('refused a message'))
    expect(refused).toHaveLength(5)
    for (const line of refused) expect(line.length).toBeLessThan(200)
    expect(lines).toContain('dsh mcp: … 45 more refused messages left out')
    expect(server.stderr()).not.toContain('zzzzzzzz')
    expect(server.stderr()).not.toContain('invalid_union')
  })
})
