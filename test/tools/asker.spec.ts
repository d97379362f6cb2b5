/**
 * A refused approval names who asked: the plugin owning the pre-execute
 * listener whose `ask` stood, not an outer listener that handed it on.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

async function setUp(outer: (ctx: Context) => void) {
  k = await createTestKernel()
  k.ctx.plugin({ name: 'outer', inject: ['tools'], apply: outer })
  k.ctx.plugin({ name: 'asker', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(testTool('t'))
    ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'writes need a human' }))
  } })
  return k
}

describe('who asked', () => {
  it('an outer listener that awaits next() and returns its decision does not claim the ask', async () => {
    const k = await setUp((ctx) => { ctx.on('tools/pre-execute', async (_exec, next) => await next()) })
    const result = await k.call('t')
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(result.error?.message).toMatch(/^approval unavailable \(plugin asker asked: writes need a human\): /)
  })

  it('an outer listener that makes its own ask out of the inner one is named', async () => {
    const k = await setUp((ctx) => {
      ctx.on('tools/pre-execute', async (_exec, next) => {
        const inner = await next()
        return inner.kind === 'ask' ? { kind: 'ask', reason: `outer too: ${inner.reason}` } : inner
      })
    })
    const result = await k.call('t')
    expect(result.error?.message).toMatch(/^approval unavailable \(plugin outer asked: outer too: writes need a human\): /)
  })

  it('an ask without a reason still names the plugin', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'quiet', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('t'))
      ctx.on('tools/pre-execute', () => ({ kind: 'ask' }))
    } })
    const result = await k.call('t')
    expect(result.error?.message).toMatch(/^approval unavailable \(plugin quiet asked\): /)
  })
})
