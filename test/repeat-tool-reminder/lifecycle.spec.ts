import { afterEach, describe, expect, it } from 'vitest'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Context } from 'cordis'
import { KernelError, type Session } from '@dsh/kernel'
import type { ToolResult } from '@dsh/tools'
import * as Reminder from '@dsh/repeat-tool-reminder'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const closeListeners = (session: Session) => (session as any).closeListeners.size as number
const reminded = (result: ToolResult) => result.content.some((b) => b.type === 'text' && b.text.startsWith('[repeat-tool-reminder]'))

async function kernelWithTool() {
  k = await createTestKernel()
  k.ctx.plugin({ name: 'fixture-tools', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('look')) } })
  return k
}

describe('disposal', () => {
  it('stops reminding and removes the close listeners it put on open sessions', async () => {
    const k = await kernelWithTool()
    const before = closeListeners(k.session)
    const fork = k.ctx.plugin(Reminder, { thresholds: [2] })
    await k.call('look')
    expect(reminded(await k.call('look'))).toBe(true)
    expect(closeListeners(k.session)).toBe(before + 1)
    fork.dispose()
    expect(closeListeners(k.session)).toBe(before)
    expect(reminded(await k.call('look'))).toBe(false)
    expect(reminded(await k.call('look'))).toBe(false)
  })

  it('100 load/dispose cycles on one session leave nothing behind', async () => {
    const k = await kernelWithTool()
    const before = closeListeners(k.session)
    for (let i = 0; i < 100; i++) {
      const fork = k.ctx.plugin(Reminder, { thresholds: [2] })
      await k.call('look')
      // a fresh plugin starts a fresh run
      expect(reminded(await k.call('look'))).toBe(true)
      fork.dispose()
    }
    expect(closeListeners(k.session)).toBe(before)
    expect((k.ctx.root.lifecycle as any)._hooks['tools/post-execute'] ?? []).toHaveLength(0)
  })
})

describe('forgetting per session', () => {
  it('a closed session\'s run is dropped; a reopened session with the same id starts again', async () => {
    const k = await kernelWithTool()
    k.ctx.plugin(Reminder, { thresholds: [3] })
    const s1 = k.openSession({ id: 'again' })
    await k.call('look', {}, { session: s1 })
    await k.call('look', {}, { session: s1 })
    const listening = closeListeners(s1)
    s1.close()
    expect(listening).toBeGreaterThan(0)
    const s2 = k.openSession({ id: 'again' })
    expect(s2).not.toBe(s1)
    expect(reminded(await k.call('look', {}, { session: s2 }))).toBe(false)
    expect(reminded(await k.call('look', {}, { session: s2 }))).toBe(false)
    expect(reminded(await k.call('look', {}, { session: s2 }))).toBe(true)
    s2.close()
  })

  it('keeps no session alive: 200 sessions used and closed are all collectable', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const k = await kernelWithTool()
    k.ctx.plugin(Reminder, { thresholds: [2] })
    // in a function of its own, so no frame of this test holds the last session
    const use = async (id: string) => {
      const session = k.openSession({ id })
      await k.call('look', {}, { session })
      await k.call('look', {}, { session })
      session.close()
      return new WeakRef(session)
    }
    const refs: WeakRef<Session>[] = []
    for (let i = 0; i < 200; i++) refs.push(await use(`s${i}`))
    for (let i = 0; i < 5 && refs.some((r) => r.deref()); i++) {
      await new Promise((resolve) => setImmediate(resolve))
      gc()
    }
    expect(refs.filter((r) => r.deref()).length).toBe(0)
  })

  it('twin: an open session is kept (the sessions service holds it) and keeps its run', async () => {
    const k = await kernelWithTool()
    k.ctx.plugin(Reminder, { thresholds: [3] })
    const open = k.openSession({ id: 'open' })
    await k.call('look', {}, { session: open })
    await k.call('look', {}, { session: open })
    expect(reminded(await k.call('look', {}, { session: open }))).toBe(true)
    open.close()
  })
})

describe('invalid configs fail at load, naming the path and the bad value', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['a threshold of 1', { thresholds: [1] }, /\$\.thresholds\[0\].*1/],
    ['a negative threshold', { thresholds: [3, -5] }, /\$\.thresholds\[1\].*-5/],
    ['a fractional threshold', { thresholds: [2.5] }, /\$\.thresholds\[0\].*2\.5/],
    ['a non-number threshold', { thresholds: ['three'] }, /\$\.thresholds\[0\].*three/],
    ['a number instead of a list', { thresholds: 3 }, /\$\.thresholds.*3/],
    ['an unknown key', { threshold: [3] }, /unknown key threshold/],
  ]
  for (const [what, config, message] of bad) {
    it(`refuses ${what}`, async () => {
      const error = await createTestKernel({ plugins: { 'repeat-tool-reminder': config } }).then(
        (kernel) => { k = kernel; return undefined },
        (e: unknown) => e,
      )
      expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toMatch(/repeat-tool-reminder/)
      expect((error as Error).message).toMatch(message)
    })
  }

  it('twin: a valid config loads with the defaults filled in', async () => {
    k = await createTestKernel({ plugins: { 'repeat-tool-reminder': {} } })
    expect(k.plugins()[0].config).toEqual({ thresholds: [3, 5, 8] })
  })
})
