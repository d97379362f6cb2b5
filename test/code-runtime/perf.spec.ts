/**
 * Latency figures of the runtime, printed for the record and checked against
 * bounds loose enough for a loaded CI machine (they catch a regression by an
 * order of magnitude, not by percents). Design targets, on an idle machine:
 * ~1 ms from run() to outcome for a one-sub-call program, ≤ 100 µs per
 * sequential sub-call, abort → outcome well under 100 ms.
 */
import type { SubCallBridge } from '@dsh/code-runtime'
import { describe, expect, it } from 'vitest'
import { median, sleep, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 2 })
const trivial: SubCallBridge = async (_name, args) => ({ ok: true, value: args })

/** CPU milliseconds used by the whole process so far, every thread included (getrusage) */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

async function time(code: string): Promise<number> {
  const started = performance.now()
  const outcome = await runtime().run({ code, tools: ['echo'], call: trivial })
  if (!outcome.ok) throw new Error(outcome.message)
  return performance.now() - started
}

describe('latency', () => {
  it('cold start: run() to outcome for a program doing one sub-call (median of 200 after warm-up)', async () => {
    const code = 'const r = await tools.echo({ n: 1 })\nreturn r.n'
    // the workers warm the JIT up while idle for a few seconds after they start
    await sleep(3000)
    for (let i = 0; i < 100; i++) await time(code)
    const back = []
    const cpu = cpuMs()
    for (let i = 0; i < 200; i++) back.push(await time(code))
    const cpuPerRun = (cpuMs() - cpu) / 200
    const spaced = []
    for (let i = 0; i < 50; i++) {
      await sleep(5)
      spaced.push(await time(code))
    }
    console.log(
      `cold start, one sub-call: median ${median(back).toFixed(2)} ms back to back, ${median(spaced).toFixed(2)} ms with 5 ms ` +
        `between runs; ${cpuPerRun.toFixed(2)} ms of CPU per run, all threads (the next isolate made while idle included)`,
    )
    expect(median(back)).toBeLessThan(25)
  }, 120_000)

  it('per-sub-call overhead over 1,000 sequential sub-calls', async () => {
    const calls = 'let s = 0\nfor (let i = 0; i < 1000; i++) s += (await tools.echo({ i })).i\nreturn s'
    const local = 'let s = 0\nfor (let i = 0; i < 1000; i++) s += (await Promise.resolve({ i })).i\nreturn s'
    await time(calls)
    const perCall = []
    const cpuPerCall = []
    for (let i = 0; i < 7; i++) {
      let cpu = cpuMs()
      const withCalls = await time(calls)
      const cpuWith = cpuMs() - cpu
      cpu = cpuMs()
      const without = await time(local)
      cpuPerCall.push((cpuWith - (cpuMs() - cpu)) / 1000)
      perCall.push((withCalls - without) / 1000)
    }
    console.log(
      `sub-call overhead: median ${(median(perCall) * 1000).toFixed(0)} µs per sequential sub-call to a trivial bridge, ` +
        `${(median(cpuPerCall) * 1000).toFixed(0)} µs of CPU, all threads`,
    )
    expect(median(perCall)).toBeLessThan(1)
  }, 120_000)

  it('abort latency of a busy loop', async () => {
    const latencies = []
    for (let i = 0; i < 15; i++) {
      const controller = new AbortController()
      const pending = runtime().run({ code: 'while (true) {}', tools: [], call: trivial, signal: controller.signal })
      await sleep(30)
      const aborted = performance.now()
      controller.abort()
      await pending
      latencies.push(performance.now() - aborted)
    }
    console.log(`abort → outcome: median ${median(latencies).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`)
    expect(median(latencies)).toBeLessThan(100)
  }, 60_000)
})
