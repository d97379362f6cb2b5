// An upstream server is untrusted: names dsh cannot take, schemas the
// validator refuses, a 50 MB result, a result that is not MCP, a server that
// never answers initialize, one that floods notifications — each a clear
// error or a skipped tool with its reason, never a crashed kernel or a hung call.
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { eventually, fixtureServer, kernelWith, nodeServer, RAW, serverPids, text, toolNames } from './helpers.js'

let k: TestKernel | undefined

describe('mcp-servers: hostile servers', () => {
  it('tools with names dsh cannot take or schemas the validator rejects are skipped, each with its reason', async () => {
    const skipped: any[] = []
    k = await kernelWith({ servers: {} })
    k.ctx.on('mcp-servers/skipped', (info) => void skipped.push(info))
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: { raw: nodeServer(RAW, {}, ['bad-tools']) } } } } as any)
    // a name that is a valid dsh name stays, whatever it looks like: the registry keys by own property
    expect(toolNames(k)).toEqual(['mcp__raw____proto__', 'mcp__raw__good'])
    const reasons = Object.fromEntries(skipped.map((s) => [s.tool, s.reason]))
    expect(reasons['has space']).toMatch(/characters a dsh tool name cannot/)
    expect(reasons['x'.repeat(80)]).toMatch(/longer than the 64 characters/)
    expect(reasons.bad_schema).toMatch(/schema|type/i)
    expect(Object.hasOwn(reasons, '__proto__')).toBe(false)
    expect(text(await k.call('mcp__raw____proto__', {}))).toBe('ok')
    expect(Object.keys(Object.prototype)).toEqual([])
    expect(text(await k.call('mcp__raw__good', {}))).toBe('ok')
  })

  it('a result that is not MCP ends the call TOOL_FAILED, and the server serves on', async () => {
    k = await kernelWith({ servers: { raw: nodeServer(RAW, {}, ['bad-result']) } })
    const r = await k.call('mcp__raw__good', {})
    expect(r.error?.code).toBe('TOOL_FAILED')
    expect(r.error?.message).toMatch(/MCP server raw failed on good/)
  })

  it('a value that breaks the tool\'s outputSchema, or none from a tool that declares one, ends the call TOOL_FAILED', async () => {
    k = await kernelWith({ servers: { raw: nodeServer(RAW, {}, ['bad-value']) } })
    const typed = await k.call('mcp__raw__typed', {})
    expect(typed.error?.code).toBe('TOOL_FAILED')
    expect(typed.error?.message).toMatch(/mcp__raw__typed broke its outputSchema: .*n/)
    expect(typed.value).toBeUndefined()
    const missing = await k.call('mcp__raw__missing', {})
    expect(missing.error?.code).toBe('TOOL_FAILED')
    expect(missing.error?.message).toMatch(/output schema but did not return structured content|returned no value/)
    const right = await k.call('mcp__raw__right', {})
    expect(right.isError, text(right)).toBe(false)
    expect(right.value).toEqual({ n: 7 })
  })

  it('a server that never answers initialize is given up within initializeTimeoutMs; the kernel starts', async () => {
    const exited: any[] = []
    k = await kernelWith({ servers: {} })
    k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
    await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: { mute: nodeServer(RAW, {}, ['silent']) }, initializeTimeoutMs: 300, maxFailures: 0 } } } as any)
    expect(await eventually(() => exited.length === 1)).toBe(true)
    expect(exited[0].reason).toMatch(/did not answer initialize within initializeTimeoutMs \(300 ms\)/)
    expect(toolNames(k)).toEqual([])
    // the server that never answered is ended, not left running
    expect(await eventually(() => serverPids(k!.dir).length === 0)).toBe(true)
  })

  it('a call the server never answers ends TIMEOUT naming callTimeoutMs, and the server is told to stop', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { callTimeoutMs: 300 } })
    const r = await k.call('mcp__fix__sleep', { ms: 60_000 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.error?.message).toBe('mcp__fix__sleep: MCP server fix did not answer sleep within callTimeoutMs (300 ms)')
    expect(await eventually(async () => (((await k!.call('mcp__fix__cancelled', {})).value as any)?.ids ?? []).length === 1)).toBe(true)
  })

  it('a 50 MB result is refused as over maxMessageBytes: the call ends with that reason, the server restarts', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { maxMessageBytes: 8 * 1024 * 1024 } })
    const r = await k.call('mcp__fix__huge', { mb: 50 })
    expect(r.error?.code).toBe('TOOL_FAILED')
    expect(r.error?.message).toMatch(/over maxMessageBytes \(8388608 bytes\)/)
    expect(text(await k.call('mcp__fix__echo', { text: 'after' }))).toBe('after')
  })

  it('a result under the message cap but over maxResultBytes is an error naming the cap', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { maxResultBytes: 1024 * 1024 } })
    const r = await k.call('mcp__fix__huge', { mb: 2 })
    expect(r.error?.code).toBe('TOOL_FAILED')
    expect(r.error?.message).toMatch(/over mcp-servers maxResultBytes \(1048576\)/)
  })

  it('a server flooding notifications is cut off; the call ends, the server restarts', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { maxNotificationsPerSecond: 50 } })
    const r = await k.call('mcp__fix__flood', { n: 5000 })
    expect(r.error?.code).toBe('TOOL_FAILED')
    expect(r.error?.message).toMatch(/maxNotificationsPerSecond \(50\)/)
    expect(text(await k.call('mcp__fix__echo', { text: 'after' }))).toBe('after')
  })

  it('config errors name the key: a server name that cannot be part of a tool name, an unknown key', async () => {
    await expect(kernelWith({ servers: { 'bad.name': fixtureServer() } })).rejects.toThrow(/servers\.bad\.name: a server name may hold only/)
    await expect(kernelWith({ servers: { a__b: fixtureServer() } })).rejects.toThrow(/may not contain "__"/)
    await expect(kernelWith({ servers: { a: fixtureServer({ shell: true }) } })).rejects.toThrow(/servers\.a\.shell is not a key of a stdio server/)
    await expect(kernelWith({ servers: { a: fixtureServer({ sandbox: { mode: 'read-only', net: 'on' } }) } })).rejects.toThrow(/servers\.a\.sandbox\.net is not a key/)
    await expect(kernelWith({ servers: { a: { url: 'http://127.0.0.1:1/mcp', command: 'x' } } })).rejects.toThrow(/either command .* or url/)
  })
})
