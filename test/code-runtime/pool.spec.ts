import { describe, expect, it } from 'vitest'
// the pool is internal: its failure paths are reached through a broken worker entry
import { defaultCodeLimits } from '../../core/code-runtime/src/limits.js'
import { PoolWorker } from '../../core/code-runtime/src/pool-worker.js'
import { HostRun } from '../../core/code-runtime/src/run.js'

describe('a worker that cannot start', () => {
  it('is tried three times, then given up with the reason, and ready() still settles', async () => {
    const events = { idle: 0, failed: 0 }
    const entry = new URL('data:text/javascript,throw new Error("no QuickJS here")')
    const worker = new PoolWorker({ idle: () => events.idle++, failed: () => events.failed++ }, { entry })
    await worker.warm
    expect(worker.state).toBe('failed')
    expect(worker.failure).toMatch(/no QuickJS here/)
    expect(events).toEqual({ idle: 0, failed: 1 })
    await worker.close()
  })

  it('reports a failure it sends itself (a fatal message) as the reason', async () => {
    const entry = new URL(
      'data:text/javascript,' +
        encodeURIComponent(
          'import { workerData } from "node:worker_threads"\nworkerData.port.postMessage({ t: "fatal", message: "wasm did not load" })',
        ),
    )
    const worker = new PoolWorker({ idle: () => {}, failed: () => {} }, { entry })
    await worker.warm
    expect(worker).toMatchObject({ state: 'failed', failure: 'wasm did not load' })
    await worker.close()
  })
})

describe('a worker whose sub-call channel goes wrong', () => {
  it('is replaced, and its run fails instead of the host taking the garbage (or crashing on it)', async () => {
    const channelUrl = new URL('../../core/code-runtime/src/worker/channel.js', import.meta.url).href
    // a worker that says ready, then answers its first run with a record that is not a sub-call
    const source = `
      import { workerData } from 'node:worker_threads'
      const { Channel } = await import(${JSON.stringify(channelUrl)})
      const up = new Channel(workerData.up)
      workerData.port.on('message', message => {
        if (message.t !== 'run') return
        up.write('not a record')
        workerData.port.postMessage({ t: 'wake' })
      })
      workerData.port.postMessage({ t: 'ready' })
    `
    const entry = new URL(`data:text/javascript,${encodeURIComponent(source)}`)
    const events = { idle: 0 }
    const worker = new PoolWorker({ idle: () => events.idle++, failed: () => {} }, { entry })
    await worker.warm
    expect(worker.state).toBe('idle')
    const limits = { ...defaultCodeLimits }
    const run = new HostRun(1, { code: 'return 1', tools: ['echo'], call: async () => ({ ok: true, value: 1 }) }, limits, 1000, () => {})
    worker.start(run)
    const outcome = await run.done
    expect(outcome).toMatchObject({ ok: false, code: 'THREW' })
    expect(outcome.ok || outcome.message).toMatch(/stopped during the run: a sub-call record is malformed/)
    // a fresh thread was started in its place
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(worker.state).toBe('idle')
    expect(events.idle).toBe(2)
    await worker.close()
  })
})

describe("the pool's activity word", () => {
  it('counts a run while it is in progress, and notifies idle workers when it ends', async () => {
    const activity = new Int32Array(new SharedArrayBuffer(4))
    const worker = new PoolWorker({ idle: () => {}, failed: () => {} }, { activity })
    await worker.warm
    let answer!: () => void
    const answered = new Promise<void>(resolve => (answer = resolve))
    const bridge = async () => {
      await answered
      return { ok: true as const, value: 2 }
    }
    const run = new HostRun(1, { code: 'return await tools.echo({})', tools: ['echo'], call: bridge }, { ...defaultCodeLimits }, 1000, () => {})
    worker.start(run)
    expect(Atomics.load(activity, 0)).toBe(1)
    const woken = Atomics.waitAsync(activity, 0, 1)
    expect(woken.async).toBe(true)
    answer()
    expect(await run.done).toMatchObject({ ok: true, value: 2 })
    expect(await woken.value).toBe('ok')
    expect(Atomics.load(activity, 0)).toBe(0)
    await worker.close()
  })
})
