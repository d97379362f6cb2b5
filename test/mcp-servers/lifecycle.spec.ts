// A server's life: lazy or eager start, crash → error with its stderr →
// restart → given up (mcp-servers/exited), list_changed followed, a call's
// cancel reaching the server, progress forwarded, the kernel's stop leaving no
// process behind.
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { eventually, fixtureServer, kernelWith, serverPids, text, toolNames } from './helpers.js'

let k: TestKernel | undefined

describe('mcp-servers: lifecycle', () => {
  it('a crash ends the call TOOL_FAILED with the stderr tail; the server is restarted; repeated crashes remove its tools', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { maxFailures: 2 } })
    const exited: unknown[] = []
    k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
    const first = await k.call('mcp__fix__crash', {})
    expect(first.error?.code).toBe('TOOL_FAILED')
    expect(first.error?.message).toContain('fixture: about to crash on purpose')
    expect(first.error?.message).toMatch(/exited \(code 3\)/)
    // restarted: the next call is served
    const again = await k.call('mcp__fix__echo', { text: 'back' })
    expect(text(again)).toBe('back')
    await k.call('mcp__fix__crash', {})
    await k.call('mcp__fix__echo', { text: 'still' })
    await k.call('mcp__fix__crash', {})
    expect(await eventually(() => exited.length === 1)).toBe(true)
    expect(exited[0]).toMatchObject({ server: 'fix', failures: 3 })
    expect(toolNames(k)).toEqual([])
    const gone = await k.call('mcp__fix__echo', { text: 'x' })
    expect(gone.error?.code).toBe('UNKNOWN_TOOL')
  })

  it('a server that fails to start is retried and then given up, naming why', async () => {
    k = await kernelWith({ servers: { bad: { command: process.execPath, args: ['-e', 'process.stderr.write("no config here\\n"); process.exit(7)'] } }, config: { maxFailures: 1 } })
    const exited: any[] = []
    k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
    expect(await eventually(() => exited.length === 1)).toBe(true)
    expect(exited[0].reason).toMatch(/could not start/)
  })

  it('list_changed: a tool the server adds appears (tools/change) and works', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    let changes = 0
    k.ctx.on('tools/change', () => void changes++)
    expect(toolNames(k)).not.toContain('mcp__fix__added')
    await k.call('mcp__fix__add_tool', {})
    expect(await eventually(() => toolNames(k!).includes('mcp__fix__added'))).toBe(true)
    expect(changes).toBeGreaterThan(0)
    expect(text(await k.call('mcp__fix__added', {}))).toBe('added works')
  })

  it('cancelling a call sends notifications/cancelled upstream; progress comes back', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    const controller = new AbortController()
    const progress: string[] = []
    const running = k.call('mcp__fix__sleep', { ms: 30_000 }, {
      signal: controller.signal,
      onProgress: (report) => {
        progress.push(typeof report === 'function' ? report() : report)
        controller.abort()
      },
    })
    // without progress, cancel after the server has the request
    setTimeout(() => controller.abort(), 1500)
    const r = await running
    expect(r.error?.code).toBe('ABORTED')
    const ids = await eventually(async () => (((await k!.call('mcp__fix__cancelled', {})).value as any)?.ids ?? []).length === 1)
    expect(ids).toBe(true)
  })

  it('progress from the server reaches the caller', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() } })
    const progress: string[] = []
    const r = await k.call('mcp__fix__sleep', { ms: 10 }, { onProgress: (report) => void progress.push(typeof report === 'function' ? report() : report) })
    expect(r.isError).toBe(false)
    expect(progress.join('\n')).toContain('1 of 2: half way')
  })

  it('lazy start: the kernel starts before the server; its tools arrive with tools/change', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { start: 'lazy' } })
    expect(await eventually(() => toolNames(k!).includes('mcp__fix__echo'))).toBe(true)
    expect(text(await k.call('mcp__fix__echo', { text: 'lazy' }))).toBe('lazy')
  })

  it('stopping the kernel leaves no server process behind', async () => {
    k = await kernelWith({ servers: { a: fixtureServer(), b: fixtureServer() } })
    await k.call('mcp__a__echo', { text: 'x' })
    const dir = k.dir
    expect(serverPids(dir).length).toBeGreaterThanOrEqual(2)
    await k.dispose()
    expect(await eventually(() => serverPids(dir).length === 0)).toBe(true)
  })

  for (const mode of ['read-only', 'danger-full-access'] as const) {
    it(`${mode}: what a server started is gone too once the kernel stops`, async () => {
      k = await kernelWith({ sandbox: { mode }, servers: { fix: fixtureServer() } })
      expect(text(await k.call('mcp__fix__spawn_child', {}))).toMatch(/^started \d+/)
      const dir = k.dir
      expect(await eventually(() => serverPids(dir).length >= 2)).toBe(true)
      await k.dispose()
      expect(await eventually(() => serverPids(dir).length === 0)).toBe(true)
    })
  }
})
