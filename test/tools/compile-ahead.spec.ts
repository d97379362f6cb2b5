// `tools/idle` compiles the argument checks of the tools a model calls directly, one per turn of
// the event loop, and stops once the host is no longer idle; the check compiled ahead is the one
// the tool's call then uses, and refuses bad arguments as a check compiled on the call does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

const turns = async (n = 6) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('argument checks compiled while idle', () => {
  let k: TestKernel
  beforeEach(async () => {
    k = await createTestKernel()
    k.ctx.plugin({
      name: 'two-tools',
      inject: ['tools'],
      apply(ctx) {
        ctx.tools.register(testTool('count', () => 'counted', { parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false } }))
        ctx.tools.register(testTool('say', () => 'said', { parameters: { type: 'object', properties: { text: { type: 'string', maxLength: 3 } }, required: ['text'] } }))
      },
    })
    await k.ctx.lifecycle.flush()
  })
  afterEach(() => k.cleanup())

  const entry = (name: string) => k.ctx.tools.entries().find((e) => e.def.name === name)!

  it('are compiled for every tool, and the call uses the one compiled ahead', async () => {
    expect(entry('count').check).toBeUndefined()
    expect(entry('say').check).toBeUndefined()
    k.ctx.emit('tools/idle', () => true)
    await turns()
    const ahead = entry('count').check
    expect(ahead).toBeTypeOf('function')
    expect(entry('say').check).toBeTypeOf('function')
    const refused = await k.ctx.tools.execute({ callId: 'c1', name: 'count', arguments: { n: 0 }, session: k.session })
    expect(refused.error?.code).toBe('INVALID_ARGS')
    expect(refused.error?.message).toContain('arguments.n must be >= 1')
    const extra = await k.ctx.tools.execute({ callId: 'c2', name: 'count', arguments: { n: 1, m: 2 }, session: k.session })
    expect(extra.error?.message).toContain('must NOT have additional properties ("m")')
    expect((await k.ctx.tools.execute({ callId: 'c3', name: 'count', arguments: { n: 2 }, session: k.session })).content).toEqual([{ type: 'text', text: 'counted' }])
    expect(entry('count').check).toBe(ahead)
  })

  it('stop between tools once idle() is false, and compile nothing when it is false from the start', async () => {
    let asked = 0
    k.ctx.emit('tools/idle', () => asked++ < 1)
    await turns()
    expect(entry('count').check).toBeTypeOf('function')
    expect(entry('say').check).toBeUndefined()
    k.ctx.emit('tools/idle', () => false)
    await turns()
    expect(entry('say').check).toBeUndefined()
  })
})
