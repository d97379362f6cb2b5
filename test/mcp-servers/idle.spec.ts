// idleTimeoutMs: a stdio server with no call running for that long is stopped
// (its process gone, seen in /proc), its tools stay, and the next call starts
// it again (a new process); a call longer than the idle time is never cut; a
// rest is not a failure; and 0 (the default) keeps the server running.
import { afterEach, describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { poolFor } from '../../plugins/mcp-servers/src/pool.js'
import { eventually, fixtureServer, kernelWith, serverPids, stop, text, toolNames } from './helpers.js'

let k: TestKernel | undefined
afterEach(async () => {
  if (k) await stop(k)
  k = undefined
})

describe('mcp-servers: idleTimeoutMs', () => {
  it('an idle server is stopped, keeps its tools, and the next call starts it again', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { idleTimeoutMs: 300, maxFailures: 0 } })
    const exited: unknown[] = []
    k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
    const changes: unknown[] = []
    k.ctx.on('tools/change', () => void changes.push(1))
    expect(text(await k.call('mcp__fix__echo', { text: 'one' }))).toBe('one')
    const first = serverPids(k.dir)
    expect(first.length).toBeGreaterThan(0)
    // gone, with no call in between
    expect(await eventually(() => serverPids(k!.dir).length === 0, 5000)).toBe(true)
    expect(toolNames(k)).toContain('mcp__fix__echo')
    expect(text(await k.call('mcp__fix__echo', { text: 'two' }))).toBe('two')
    const second = serverPids(k.dir)
    expect(second.length).toBeGreaterThan(0)
    expect(second.some((pid) => first.includes(pid))).toBe(false)
    // the same tools listed again: not re-registered; and a rest is no failure (maxFailures 0 would give it up)
    expect(changes).toEqual([])
    expect(exited).toEqual([])
  })

  it('a call that runs longer than the idle time is not cut, and the timer starts after it', async () => {
    k = await kernelWith({ servers: { fix: fixtureServer() }, config: { idleTimeoutMs: 200 } })
    const r = await k.call('mcp__fix__sleep', { ms: 700 })
    expect(r.isError, text(r)).toBe(false)
    expect(serverPids(k.dir).length).toBeGreaterThan(0)
    expect(await eventually(() => serverPids(k!.dir).length === 0, 5000)).toBe(true)
  })

  it('0 (the default): the server runs on after a call, while a server with a time set is stopped', async () => {
    k = await kernelWith({ servers: { keep: fixtureServer() } })
    await k.call('mcp__keep__echo', { text: 'x' })
    const keep = serverPids(k.dir)
    expect(keep.length).toBeGreaterThan(0)
    // a second kernel's server with a short idle time, as the clock this one is measured against
    const other = await kernelWith({ servers: { rest: fixtureServer() }, config: { idleTimeoutMs: 200 } })
    try {
      await other.call('mcp__rest__echo', { text: 'x' })
      expect(await eventually(() => serverPids(other.dir).length === 0, 5000)).toBe(true)
    } finally {
      await stop(other)
    }
    expect(serverPids(k.dir)).toEqual(keep)
  })

  it('a reload that changes another server leaves a resting one resting, its tools registered', async () => {
    const config = (marker: string) => ({ servers: { fix: fixtureServer(), other: fixtureServer({ env: { MARKER: marker } }) }, idleTimeoutMs: 300, restartBackoffMs: 50 })
    k = await kernelWith({ servers: config('a').servers, config: { idleTimeoutMs: 300 } })
    const fix = () => poolFor(k!.ctx).list().find((s) => s.name === 'fix')
    await k.call('mcp__fix__echo', { text: 'x' })
    expect(await eventually(() => fix()?.state === 'resting', 5000)).toBe(true)
    const before = fix()
    await k.reload({ ...k.options, plugins: { 'mcp-servers': config('b') } } as any)
    // the same server object, handed over, not started by the reload
    expect(fix()).toBe(before)
    expect(fix()?.state).toBe('resting')
    expect(fix()?.pid).toBeUndefined()
    expect(toolNames(k)).toEqual(expect.arrayContaining(['mcp__fix__echo', 'mcp__other__echo']))
    expect(text(await k.call('mcp__fix__echo', { text: 'woken' }))).toBe('woken')
    expect(fix()?.state).toBe('ready')
  })
})
