/**
 * An own "__proto__" argument key over the MCP wire (raw JSON-RPC lines, as
 * a client sends them; JSON.parse makes the key an own property): refused by
 * a schema with additionalProperties: false exactly as "constructor" is, and
 * kept as plain data (logged, nothing re-prototyped) by an open schema.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixture, Workspace } from './mcp-helpers.js'
import { rawServer, type RawServer } from './mcp-raw.js'

let ws: Workspace | undefined
let server: RawServer | undefined

beforeAll(assertBuilt)
afterEach(async () => {
  // the server first, then its workspace
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL')
    await server.exited
  }
  server = undefined
  ws?.cleanup()
  ws = undefined
})

const call = (id: number, name: string, args: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`

describe('dsh mcp: a "__proto__" argument key', () => {
  it('is refused by additionalProperties: false like "constructor", and kept as data by an open schema', async () => {
    ws = new Workspace({ plugins: { 'workspace-tools': {}, [fixture('echo-tool.mjs')]: {} } })
    server = rawServer(['--config', ws.config], ws.dir)
    server.line('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}')
    await server.reply(1)
    server.line('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    server.line(call(2, 'read', '{"file_path":"dsh.yml","__proto__":{"x":1}}'))
    const proto = (await server.reply(2)).result
    expect(proto.isError).toBe(true)
    expect(proto.content[0].text).toMatch(/^read: arguments must NOT have additional properties \("__proto__"\)/)

    server.line(call(3, 'read', '{"file_path":"dsh.yml","constructor":{"x":1}}'))
    const ctor = (await server.reply(3)).result
    expect(ctor.isError).toBe(true)
    expect(ctor.content[0].text).toMatch(/must NOT have additional properties \("constructor"\)/)

    server.line(call(4, 'echo', '{"command":"hello","__proto__":{"polluted":"yes"}}'))
    const echo = (await server.reply(4)).result
    expect(echo.isError).toBeFalsy()
    expect(echo.content).toEqual([{ type: 'text', text: 'hello' }])
    // logged as the client sent it: the key is data, not a prototype
    const logged = (await ws.waitForEvent((e) => e.type === 'tool/call' && e.data.callId === 'mcp-4', 'the echo call in the log')).data.arguments
    expect(Object.keys(logged)).toEqual(['command', '__proto__'])

    // the server serves on, with no prototype touched
    server.line(call(5, 'echo', '{"command":"again"}'))
    expect((await server.reply(5)).result.content).toEqual([{ type: 'text', text: 'again' }])
  })
})
