import { describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'

declare module 'cordis' {
  interface Events {
    'test/wf'(input: string[], next: () => Promise<string[]>): string[] | Promise<string[]>
  }
}

async function root() {
  const ctx = new Context()
  await ctx.start()
  return ctx
}

describe('ctx.waterfall', () => {
  it('calls the fallback when nobody listens', async () => {
    const ctx = await root()
    expect(await ctx.waterfall('test/wf', ['in'], (input) => [...input, 'fallback'])).toEqual(['in', 'fallback'])
  })

  it('runs listeners in registration order, prepend first, as middleware', async () => {
    const ctx = await root()
    const trace: string[] = []
    ctx.on('test/wf', async (input, next) => { trace.push('a>'); const out = await next(); trace.push('<a'); return [...out, 'a'] })
    ctx.on('test/wf', async (input, next) => { trace.push('b>'); const out = await next(); trace.push('<b'); return [...out, 'b'] })
    ctx.on('test/wf', async (input, next) => { trace.push('p>'); return next() }, true)
    const out = await ctx.waterfall('test/wf', [], () => { trace.push('fallback'); return ['f'] })
    expect(trace).toEqual(['p>', 'a>', 'b>', 'fallback', '<b', '<a'])
    expect(out).toEqual(['f', 'b', 'a'])
  })

  it('lets a listener answer without calling next', async () => {
    const ctx = await root()
    let fell = false
    ctx.on('test/wf', () => ['short'])
    expect(await ctx.waterfall('test/wf', [], () => { fell = true; return [] })).toEqual(['short'])
    expect(fell).toBe(false)
  })

  it('a listener that neither calls next nor returns anything still settles the chain', async () => {
    const ctx = await root()
    ctx.on('test/wf', (() => undefined) as any)
    await expect(ctx.waterfall('test/wf', [], () => ['fallback'])).resolves.toBeUndefined()
  })

  it('rejects a second next() call', async () => {
    const ctx = await root()
    let second: unknown
    ctx.on('test/wf', async (input, next) => {
      await next()
      second = await next().catch((error) => error)
      return input
    })
    await ctx.waterfall('test/wf', [], () => [])
    expect(KernelError.is(second, 'NEXT_CALLED_TWICE')).toBe(true)
  })

  it('propagates a listener throw to the caller', async () => {
    const ctx = await root()
    ctx.on('test/wf', () => { throw new Error('boom') })
    await expect(ctx.waterfall('test/wf', [], () => [])).rejects.toThrow('boom')
  })

  it('drops a disposed plugin\'s listener', async () => {
    const ctx = await root()
    const fork = ctx.plugin({ name: 'x', apply: (c: Context) => { c.on('test/wf', () => ['x']) } })
    expect(await ctx.waterfall('test/wf', [], () => ['f'])).toEqual(['x'])
    fork.dispose()
    expect(await ctx.waterfall('test/wf', [], () => ['f'])).toEqual(['f'])
  })

  it('keeps the listener set a run started with', async () => {
    const ctx = await root()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const fork = ctx.plugin({ name: 'late', apply: (c: Context) => { c.on('test/wf', async (input, next) => { await gate; return [...(await next()), 'first'] }) } })
    const running = ctx.waterfall('test/wf', [], () => ['f'])
    ctx.on('test/wf', (input, next) => next().then((out) => [...out, 'added']))
    fork.dispose()
    release()
    expect(await running).toEqual(['f', 'first'])
    expect(await ctx.waterfall('test/wf', [], () => ['f'])).toEqual(['f', 'added'])
  })

  it('applies cordis filters in a scoped waterfall', async () => {
    const ctx = await root()
    ctx.plugin({ name: 'a', apply: (c: Context) => { c.on('test/wf', (i, next) => next().then((o) => [...o, 'a'])) } })
    ctx.plugin({ name: 'b', apply: (c: Context) => { c.on('test/wf', (i, next) => next().then((o) => [...o, 'b'])) } })
    const onlyA = { [Context.filter]: (owner: Context) => owner.name === 'a' }
    expect(await ctx.waterfall(onlyA, 'test/wf', [], () => [])).toEqual(['a'])
    expect(await ctx.waterfall('test/wf', [], () => [])).toEqual(['b', 'a'])
  })

  it('passes the scoped this to listeners', async () => {
    const ctx = await root()
    const self = { tag: 'me' }
    let seen: unknown
    ctx.on('test/wf', function (this: unknown, input, next) { seen = this; return next() })
    await ctx.waterfall(self, 'test/wf', [], () => [])
    expect(seen).toBe(self)
  })
})
