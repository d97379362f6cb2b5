import { afterEach, describe, expect, it, vi } from 'vitest'
import { KernelError } from '@dsh/kernel'
import * as TimeoutPolicy from '@dsh/timeout-policy'
import type { TestKernel } from 'dsh/testing'
import { createTestKernel, observingTool, registerTools, resultEvents, stubbornTool, withFakeTimers, type Probe } from './helpers.js'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('configured limits', () => {
  it('defaultMs gives a deadline to tools that declare none', () => withFakeTimers(async () => {
    k = await createTestKernel({ plugins: { 'timeout-policy': { defaultMs: 40 } } })
    const probe: Probe = {}
    registerTools(k, observingTool('plain', 1_000, probe))
    const pending = k.call('plain')
    await vi.advanceTimersByTimeAsync(40)
    expect((await pending).error).toMatchObject({ code: 'TIMEOUT', message: 'plain exceeded its 40 ms limit' })
  }))

  it('twin: without defaultMs the same tool runs as long as it takes', () => withFakeTimers(async () => {
    k = await createTestKernel({ plugins: { 'timeout-policy': {} } })
    const probe: Probe = {}
    registerTools(k, observingTool('plain', 1_000, probe))
    const pending = k.call('plain')
    await vi.advanceTimersByTimeAsync(1_000)
    expect((await pending).isError).toBe(false)
    expect(probe.abortedAt).toBeUndefined()
  }))

  it('a per-tool limit takes precedence over the declared one, and only for that tool', () => withFakeTimers(async () => {
    k = await createTestKernel({ plugins: { 'timeout-policy': { defaultMs: 10, tools: { strict: 20 } } } })
    const strict: Probe = {}
    const other: Probe = {}
    registerTools(k, observingTool('strict', 1_000, strict, { timeoutMs: 500 }), observingTool('other', 300, other, { timeoutMs: 500 }))
    const a = k.call('strict')
    const b = k.call('other')
    await vi.advanceTimersByTimeAsync(300)
    expect((await a).error).toMatchObject({ code: 'TIMEOUT', message: 'strict exceeded its 20 ms limit' })
    // the declared 500 ms beats defaultMs: other finishes at 300 ms
    expect((await b).isError).toBe(false)
  }))
})

describe('invalid configs fail at load, naming the path and the bad value', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['a negative default', { defaultMs: -1 }, /\$\.defaultMs.*-1/],
    ['a zero default', { defaultMs: 0 }, /\$\.defaultMs.*0/],
    ['a string default', { defaultMs: 'soon' }, /\$\.defaultMs.*soon/],
    ['an infinite default', { defaultMs: Infinity }, /\$\.defaultMs.*Infinity/],
    ['NaN', { defaultMs: NaN }, /\$\.defaultMs.*NaN/],
    ['a default beyond setTimeout\'s range', { defaultMs: 2 ** 31 }, /\$\.defaultMs.*2147483648/],
    ['a negative per-tool limit', { tools: { bash: -5 } }, /\$\.tools\.bash.*-5/],
    ['a non-number per-tool limit', { tools: { bash: 'x' } }, /\$\.tools\.bash.*x/],
    ['an unknown key', { default: 10 }, /unknown key default/],
  ]
  for (const [what, config, message] of bad) {
    it(`refuses ${what}`, async () => {
      const error = await createTestKernel({ plugins: { 'timeout-policy': config } }).then(
        (kernel) => { k = kernel; return undefined },
        (e: unknown) => e,
      )
      expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toMatch(/timeout-policy/)
      expect((error as Error).message).toMatch(message)
    })
  }

  it('twin: a valid config loads', async () => {
    k = await createTestKernel({ plugins: { 'timeout-policy': { defaultMs: 1000, tools: { bash: 120_000 } } } })
    expect(k.plugins().map((p) => p.spec)).toEqual(['timeout-policy'])
  })

  it('the Config itself throws with the path when plugged directly', () => {
    expect(() => TimeoutPolicy.Config({ tools: { bash: -5 } } as any)).toThrow(/\$\.tools\.bash expected number >= 1 but got -5/)
  })
})

describe('disposal', () => {
  it('a call running while the plugin is disposed keeps its deadline and ends with exactly one result; the next call has none', () => withFakeTimers(async () => {
    k = await createTestKernel()
    const fork = k.ctx.plugin(TimeoutPolicy, { tools: {} })
    const running: Probe = {}
    registerTools(k, stubbornTool('slow', 100, running, { timeoutMs: 50 }))
    const t0 = Date.now()
    const pending = k.call('slow', {}, { callId: 'running' })
    await vi.advanceTimersByTimeAsync(10)
    fork.dispose()
    await vi.advanceTimersByTimeAsync(90)
    const result = await pending
    expect(running.abortedAt! - t0).toBe(50)
    expect(result.error?.code).toBe('TIMEOUT')
    expect(resultEvents(k, 'running')).toHaveLength(1)
    expect(vi.getTimerCount()).toBe(0)

    running.abortedAt = undefined
    const second = k.call('slow', {}, { callId: 'after' })
    await vi.advanceTimersByTimeAsync(1)
    expect(vi.getTimerCount()).toBe(1) // only the body's own timer
    await vi.advanceTimersByTimeAsync(99)
    expect((await second).isError).toBe(false)
    expect(running.abortedAt).toBeUndefined()
    expect(resultEvents(k, 'after')).toHaveLength(1)
  }))

  it('disposing removes the wrapper; plugging it again restores the deadline', () => withFakeTimers(async () => {
    k = await createTestKernel()
    const probe: Probe = {}
    registerTools(k, observingTool('slow', 100, probe, { timeoutMs: 50 }))
    for (let cycle = 0; cycle < 3; cycle++) {
      const fork = k.ctx.plugin(TimeoutPolicy, { tools: {} })
      const timed = k.call('slow')
      await vi.advanceTimersByTimeAsync(50)
      expect((await timed).error?.code).toBe('TIMEOUT')
      fork.dispose()
      const free = k.call('slow')
      await vi.advanceTimersByTimeAsync(100)
      expect((await free).isError).toBe(false)
    }
    expect((k.ctx.root.lifecycle as any)._hooks['tools/execute'] ?? []).toHaveLength(0)
    expect(vi.getTimerCount()).toBe(0)
  }))
})
