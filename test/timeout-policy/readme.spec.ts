import { afterEach, expect, it, vi } from 'vitest'
import { kernelFromReadme } from './readme-config.js'
import { observingTool, registerTools, withFakeTimers, type Probe } from './helpers.js'

let done: (() => Promise<void>) | undefined
afterEach(async () => { await done?.(); done = undefined })

it('the README\'s dsh.yml example loads and its limits apply', () => withFakeTimers(async () => {
  const loaded = await kernelFromReadme('timeout-policy')
  done = loaded.done
  expect(loaded.k.plugins().map((p) => [p.spec, p.config])).toEqual([['timeout-policy', loaded.example]])
  const probe: Probe = {}
  registerTools(loaded.k, observingTool('web_fetch', 60_000, probe))
  const pending = loaded.k.call('web_fetch')
  await vi.advanceTimersByTimeAsync(30_000)
  expect((await pending).error).toMatchObject({ code: 'TIMEOUT', message: 'web_fetch exceeded its 30000 ms limit' })
}))

it('a reload with a new limit applies it to the next call', () => withFakeTimers(async () => {
  const loaded = await kernelFromReadme('timeout-policy')
  done = loaded.done
  const probe: Probe = {}
  registerTools(loaded.k, observingTool('web_fetch', 60_000, probe))
  await loaded.k.reload({ plugins: { 'timeout-policy': { tools: { web_fetch: 10 } } } })
  const pending = loaded.k.call('web_fetch')
  await vi.advanceTimersByTimeAsync(10)
  expect((await pending).error?.message).toBe('web_fetch exceeded its 10 ms limit')
  expect((loaded.k.ctx.root.lifecycle as any)._hooks['tools/execute']).toHaveLength(1)
}))
