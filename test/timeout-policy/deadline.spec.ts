import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { KernelError } from '@dsh/kernel'
import type { TestKernel } from 'dsh/testing'
import { createTestKernel, observingTool, registerTools, resultEvents, stubbornTool, testTool, withFakeTimers, type Probe } from './helpers.js'

let k: TestKernel
afterEach(() => k?.cleanup())

async function kernel(config: Record<string, unknown> = {}) {
  k = await createTestKernel({ plugins: { 'timeout-policy': config } })
  return k
}

describe('a tool that declares timeoutMs', () => {
  beforeEach(() => kernel())

  it('ends TIMEOUT at its limit, naming the tool and the limit, and the body hears the deadline', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 1_000, probe, { timeoutMs: 50 }))
    const t0 = Date.now()
    const pending = k.call('slow')
    await vi.advanceTimersByTimeAsync(50)
    const result = await pending
    expect(result.isError).toBe(true)
    expect(result.error).toMatchObject({ code: 'TIMEOUT', message: 'slow exceeded its 50 ms limit' })
    expect(probe.abortedAt! - t0).toBe(50)
    expect(KernelError.is(probe.reason, 'TIMEOUT')).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('twin: a body that finishes inside the limit succeeds and never sees an abort', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('quick', 30, probe, { timeoutMs: 50 }))
    const pending = k.call('quick')
    await vi.advanceTimersByTimeAsync(30)
    const result = await pending
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'quick done' }])
    expect(probe.abortedAt).toBeUndefined()
    expect(probe.signal!.aborted).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('a body that ignores the signal is awaited: the result is TIMEOUT and arrives only after the body finished', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, stubbornTool('stubborn', 200, probe, { timeoutMs: 50 }))
    const t0 = Date.now()
    let arrivedAt: number | undefined
    const pending = k.call('stubborn').then((r) => { arrivedAt = Date.now(); return r })
    await vi.advanceTimersByTimeAsync(50)
    expect(probe.abortedAt! - t0).toBe(50)
    // the deadline fired, but the body is still running: no result yet
    await vi.advanceTimersByTimeAsync(100)
    expect(arrivedAt).toBeUndefined()
    expect(probe.finishedAt).toBeUndefined()
    await vi.advanceTimersByTimeAsync(50)
    const result = await pending
    expect(probe.finishedAt! - t0).toBe(200)
    expect(arrivedAt!).toBeGreaterThanOrEqual(probe.finishedAt!)
    expect(result.error?.code).toBe('TIMEOUT')
    expect(result.error?.message).toBe('stubborn exceeded its 50 ms limit')
    expect(resultEvents(k)).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('a body that throws before the limit is TOOL_FAILED and its deadline is cleared', () => withFakeTimers(async () => {
    registerTools(k, testTool('broken', () => { throw new Error('boom') }, { timeoutMs: 50 }))
    const result = await k.call('broken')
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(result.error?.message).toMatch(/boom/)
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('keeps exactly one timer while the call runs and none afterwards', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 100, probe, { timeoutMs: 500 }))
    const pending = k.call('slow')
    await vi.advanceTimersByTimeAsync(1)
    // the body's own timer and the deadline
    expect(vi.getTimerCount()).toBe(2)
    await vi.advanceTimersByTimeAsync(100)
    expect((await pending).isError).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('caps a declared limit beyond setTimeout\'s range instead of firing at once', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('patient', 100, probe, { timeoutMs: 3e9 }))
    const pending = k.call('patient')
    await vi.advanceTimersByTimeAsync(100)
    expect((await pending).isError).toBe(false)
    expect(probe.abortedAt).toBeUndefined()
  }))
})

describe('the caller\'s signal', () => {
  beforeEach(() => kernel())

  it('a caller abort that fires before the deadline ends the call ABORTED with the caller\'s reason', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 1_000, probe, { timeoutMs: 50 }))
    const caller = new AbortController()
    setTimeout(() => caller.abort(new Error('user pressed stop')), 10)
    const t0 = Date.now()
    const pending = k.call('slow', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(50)
    const result = await pending
    expect(result.error?.code).toBe('ABORTED')
    expect(probe.abortedAt! - t0).toBe(10)
    expect((probe.reason as Error).message).toBe('user pressed stop')
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('twin: a caller abort scheduled after the deadline comes too late: TIMEOUT', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 1_000, probe, { timeoutMs: 50 }))
    const caller = new AbortController()
    const late = setTimeout(() => caller.abort(new Error('too late')), 80)
    const pending = k.call('slow', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(50)
    const result = await pending
    clearTimeout(late)
    expect(result.error?.code).toBe('TIMEOUT')
    expect(caller.signal.aborted).toBe(false)
  }))

  it('a caller deadline shorter than the tool\'s is never extended: the body stops at the caller\'s', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 1_000, probe, { timeoutMs: 500 }))
    const caller = new AbortController()
    setTimeout(() => caller.abort(new DOMException('caller deadline', 'TimeoutError')), 20)
    const t0 = Date.now()
    const pending = k.call('slow', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(20)
    const result = await pending
    expect(probe.abortedAt! - t0).toBe(20)
    expect((probe.reason as DOMException).message).toBe('caller deadline')
    // the caller's own deadline is the caller's cancellation
    expect(result.error?.code).toBe('ABORTED')
    expect(vi.getTimerCount()).toBe(0)
  }))

  it('twin: a caller deadline longer than the tool\'s leaves the tool\'s in charge: TIMEOUT at the tool\'s limit', () => withFakeTimers(async () => {
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 1_000, probe, { timeoutMs: 50 }))
    const caller = new AbortController()
    const later = setTimeout(() => caller.abort(new DOMException('caller deadline', 'TimeoutError')), 200)
    const t0 = Date.now()
    const pending = k.call('slow', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(50)
    const result = await pending
    clearTimeout(later)
    expect(probe.abortedAt! - t0).toBe(50)
    expect(result.error).toMatchObject({ code: 'TIMEOUT', message: 'slow exceeded its 50 ms limit' })
  }))
})

describe('tools without a limit', () => {
  it('pay nothing: no timer, and the body gets the caller\'s own signal', () => withFakeTimers(async () => {
    await kernel()
    const probe: Probe = {}
    registerTools(k, stubbornTool('free', 10_000, probe))
    const caller = new AbortController()
    const pending = k.call('free', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(1)
    expect(vi.getTimerCount()).toBe(1) // the body's own
    expect(probe.signal).toBe(caller.signal)
    await vi.advanceTimersByTimeAsync(10_000)
    expect((await pending).isError).toBe(false)
  }))

  it('twin: a tool with a limit gets a signal of its own', () => withFakeTimers(async () => {
    await kernel()
    const probe: Probe = {}
    registerTools(k, stubbornTool('bounded', 10, probe, { timeoutMs: 50 }))
    const caller = new AbortController()
    const pending = k.call('bounded', {}, { signal: caller.signal })
    await vi.advanceTimersByTimeAsync(10)
    expect((await pending).isError).toBe(false)
    expect(probe.signal).not.toBe(caller.signal)
  }))

  it('tools named like Object.prototype members find no per-tool limit', () => withFakeTimers(async () => {
    await kernel({ tools: { other: 5 } })
    const probes: Record<string, Probe> = { constructor: {}, toString: {}, hasOwnProperty: {} }
    registerTools(k, ...Object.entries(probes).map(([name, probe]) => stubbornTool(name, 100, probe)))
    for (const name of Object.keys(probes)) {
      const pending = k.call(name)
      await vi.advanceTimersByTimeAsync(100)
      const result = await pending
      expect(result.isError, `${name}: ${result.error?.message}`).toBe(false)
      expect(probes[name].abortedAt).toBeUndefined()
    }
  }))
})
