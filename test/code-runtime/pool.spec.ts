import { describe, expect, it } from 'vitest'
// the pool is internal: its failure paths are reached through a broken worker entry
import { PoolWorker } from '../../core/code-runtime/src/pool-worker.js'

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
