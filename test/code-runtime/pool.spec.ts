import { describe, expect, it, vi } from 'vitest'
// the pool is internal (tested as private modules on purpose): its failure paths are reached through a broken worker entry
import { defaultCodeLimits } from '@dsh/code-runtime'
import { PoolWorker } from '../../core/code-runtime/src/pool-worker.js'
import { activityBytes, activitySlots } from '../../core/code-runtime/src/protocol.js'
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
    // a fresh thread was started in its place (it says so with its idle callback: on a loaded machine
    // a thread takes far longer than usual to start, so wait for it, within a bound)
    await vi.waitFor(() => expect(events.idle).toBe(2), { timeout: 10_000, interval: 20 })
    expect(worker.state).toBe('idle')
    expect(events.idle).toBe(2)
    await worker.close()
  })
})

describe("the pool's activity words", () => {
  it('count a run while it is in progress and once started, and notify idle workers when it ends', async () => {
    const activity = new Int32Array(new SharedArrayBuffer(activityBytes))
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
    expect(Atomics.load(activity, activitySlots.running)).toBe(1)
    expect(Atomics.load(activity, activitySlots.started)).toBe(1)
    const woken = Atomics.waitAsync(activity, activitySlots.running, 1)
    expect(woken.async).toBe(true)
    answer()
    expect(await run.done).toMatchObject({ ok: true, value: 2 })
    expect(await woken.value).toBe('ok')
    expect(Atomics.load(activity, activitySlots.running)).toBe(0)
    expect(Atomics.load(activity, activitySlots.started)).toBe(1)
    await worker.close()
  })
})

describe('how the host hears sub-calls', () => {
  const program = 'const seen = []\nfor (let i = 1; i <= 4; i++) seen.push((await tools.echo({ i })).i)\nreturn seen'

  /** Run `program` on a fresh worker; what `polling` was as each sub-call reached the bridge. */
  async function pollingAtEachCall(rested: boolean) {
    const worker = new PoolWorker({ idle: () => {}, failed: () => {} })
    await worker.warm
    const seen: boolean[] = []
    const bridge = async (_name: string, args: unknown) => {
      seen.push(worker.polling)
      return { ok: true as const, value: args as { i: number } }
    }
    const run = new HostRun(1, { code: program, tools: ['echo'], call: bridge }, { ...defaultCodeLimits }, 1000, () => {})
    worker.start(run, rested)
    const startedPolling = worker.polling
    const outcome = await run.done
    await worker.close()
    return { startedPolling, seen, outcome }
  }

  it('after the pool rested: by wake-ups for the first two sub-calls, polling from the second answer on', async () => {
    const { startedPolling, seen, outcome } = await pollingAtEachCall(true)
    expect(outcome).toMatchObject({ ok: true, value: [1, 2, 3, 4] })
    expect(startedPolling).toBe(false)
    expect(seen).toEqual([false, false, true, true])
  })

  it('for a run that follows another closely: polling from the start', async () => {
    const { startedPolling, seen, outcome } = await pollingAtEachCall(false)
    expect(outcome).toMatchObject({ ok: true, value: [1, 2, 3, 4] })
    expect(startedPolling).toBe(true)
    expect(seen).toEqual([true, true, true, true])
  })
})
