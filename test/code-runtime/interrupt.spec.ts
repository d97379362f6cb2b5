import type { RunOutcome } from '@dsh/code-runtime'
import { describe, expect, it } from 'vitest'
import { median, never, request, sleep, trackingBridge, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 2 })

/** Abort a running program after `afterMs`; how long from abort() to its outcome. */
async function abortLatency(code: string, afterMs = 60): Promise<{ ms: number; outcome: RunOutcome }> {
  const controller = new AbortController()
  const pending = runtime().run(request(code, { tools: ['never'], call: never, signal: controller.signal }))
  await sleep(afterMs)
  const aborted = performance.now()
  controller.abort()
  const outcome = await pending
  return { ms: performance.now() - aborted, outcome }
}

describe('a busy program never blocks the host', () => {
  it('interrupts while (true) {} at the deadline, within 100 ms (median of 5)', async () => {
    const overshoot: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      const outcome = await runtime().run(request('while (true) {}', { limits: { timeoutMs: 200 } }))
      overshoot.push(performance.now() - started - 200)
      expect(outcome).toEqual({ ok: false, code: 'TIMEOUT', message: 'the program ran past its deadline of 200 ms', logs: '' })
    }
    expect(median(overshoot)).toBeLessThan(100)
  })

  it("interrupts while (true) {} on the caller's abort within 100 ms (median of 7)", async () => {
    const latencies: number[] = []
    for (let i = 0; i < 7; i++) {
      const { ms, outcome } = await abortLatency('console.log("spinning")\nwhile (true) {}')
      latencies.push(ms)
      expect(outcome).toMatchObject({ ok: false, code: 'ABORTED', message: 'the caller aborted the run' })
      // the worker's logs come with the outcome when it reports within 50 ms (it does, unless the machine is starved)
      expect(['spinning\n', '']).toContain(outcome.logs)
    }
    expect(median(latencies)).toBeLessThan(100)
  })

  it('keeps the main thread serving timers and other runs during a busy loop', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 10)
    try {
      const busy = runtime().run(request('while (true) {}', { limits: { timeoutMs: 600 } }))
      await sleep(50)
      // the other worker serves a run meanwhile
      const quick = await runtime().run(request('return (await tools.echo({ n: 7 })).args.n'))
      expect(quick).toMatchObject({ ok: true, value: 7 })
      expect(await busy).toMatchObject({ ok: false, code: 'TIMEOUT' })
    } finally {
      clearInterval(timer)
    }
    // about 60 ticks in 600 ms; a blocked loop would give 0 or 1
    expect(ticks).toBeGreaterThan(20)
  })
})

describe('promise floods', () => {
  const floods: [string, string][] = [
    ['a loop creating resolved promises', 'for (;;) Promise.resolve()'],
    ['an endless await loop', 'for (;;) await null'],
    ['an endless chain of microtasks', 'const f = (): Promise<unknown> => Promise.resolve().then(f)\nf()\nawait tools.never({})'],
    ['a million reactions pending on a sub-call', 'const p = tools.never({})\nfor (let i = 0; i < 1e6; i++) p.then(() => 0)\nawait p'],
    ['a million pending promises', 'const all = []\nfor (let i = 0; i < 1e6; i++) all.push(new Promise(() => {}))\nawait tools.never({})'],
  ]

  for (const [what, code] of floods) {
    it(`ends ${what} at the deadline and on abort`, async () => {
      const started = performance.now()
      const timedOut = await runtime().run(request(code, { tools: ['never'], call: never, limits: { timeoutMs: 300 } }))
      expect(timedOut).toMatchObject({ ok: false, code: timedOut.ok || timedOut.code === 'MEMORY' ? 'MEMORY' : 'TIMEOUT' })
      expect(performance.now() - started).toBeLessThan(300 + 1000)
      const { ms, outcome } = await abortLatency(code, 100)
      expect(outcome.ok || outcome.code).toMatch(/^(ABORTED|MEMORY)$/)
      expect(ms).toBeLessThan(1000)
      expect(await runtime().run(request('return 1'))).toMatchObject({ ok: true, value: 1 })
    })
  }
})

describe('cancellation', () => {
  it('aborts the signal of a sub-call in flight and ends ABORTED at once', async () => {
    const signals: AbortSignal[] = []
    const controller = new AbortController()
    const pending = runtime().run({
      code: 'await tools.wait({})',
      tools: ['wait'],
      call: (_name, _args, _index, signal) => {
        signals.push(signal)
        return new Promise(() => {})
      },
      signal: controller.signal,
    })
    while (signals.length === 0) await sleep(5)
    expect(signals[0]!.aborted).toBe(false)
    const aborted = performance.now()
    controller.abort()
    expect(await pending).toMatchObject({ ok: false, code: 'ABORTED' })
    expect(performance.now() - aborted).toBeLessThan(1000)
    expect(signals[0]!.aborted).toBe(true)
  })

  it('does not start a run whose signal is already aborted', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: 1 }))
    const controller = new AbortController()
    controller.abort()
    const outcome = await runtime().run({ code: 'await tools.t({})', tools: ['t'], call: bridge.call, signal: controller.signal })
    expect(outcome).toEqual({ ok: false, code: 'ABORTED', message: 'the caller aborted the run', logs: '' })
    expect(bridge.calls).toHaveLength(0)
  })

  it('ends a queued run at once when aborted, and counts its deadline from run()', async () => {
    const busy = [1, 2].map(() => runtime().run(request('while (true) {}', { limits: { timeoutMs: 800 } })))
    const controller = new AbortController()
    const queued = runtime().run(request('return 1', { signal: controller.signal }))
    const late = runtime().run(request('return 2', { limits: { timeoutMs: 150 } }))
    await sleep(50)
    controller.abort()
    expect(await queued).toMatchObject({ ok: false, code: 'ABORTED' })
    expect(await late).toMatchObject({ ok: false, code: 'TIMEOUT' })
    for (const outcome of await Promise.all(busy)) expect(outcome).toMatchObject({ code: 'TIMEOUT' })
  })
})
