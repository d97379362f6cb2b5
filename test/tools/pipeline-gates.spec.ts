import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { eventsOf, plugin } from './helpers.js'

let k: TestKernel
let ran: number
beforeEach(async () => {
  k = await createTestKernel()
  ran = 0
  plugin(k, 'tools', (ctx) => {
    ctx.tools.register({
      name: 'echo',
      description: 'echo',
      parameters: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false },
      execute: (args) => { ran++; return `echo ${args.x ?? ''}` },
    })
  })
})
afterEach(() => k.cleanup())

describe('prepare', () => {
  it('audits every call first, also one rejected there', async () => {
    const result = await k.call('missing', { a: 1 })
    expect(result.error?.code).toBe('UNKNOWN_TOOL')
    const events = eventsOf(k, result.callId)
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(events[0].data).toMatchObject({ name: 'missing', arguments: { a: 1 } })
  })

  it('describes arguments that cannot be logged, then reports INVALID_ARGS', async () => {
    const cyclic: any = {}
    cyclic.me = cyclic
    for (const args of [{ x: 1n }, { f: () => 1 }, { d: new Date() }, { n: NaN }, cyclic, { m: new Map() }]) {
      const result = await k.call('echo', args)
      expect(result.error?.code).toBe('INVALID_ARGS')
      expect(result.error?.message).toMatch(/^TypeError: /)
      const [call] = eventsOf(k, result.callId)
      expect((call.data as any).unloggable).toMatch(/not losslessly JSON-serializable/)
      expect((call.data as any).arguments).toBeUndefined()
    }
    expect(ran).toBe(0)
  })

  it('validates against the schema, naming the problem', async () => {
    const wrongType = await k.call('echo', { x: 3 })
    expect(wrongType.error).toEqual({ code: 'INVALID_ARGS', message: 'echo: arguments.x must be string', source: { kind: 'prepare', plugin: 'tools', detail: 'the parameters schema' } })
    const extra = await k.call('echo', { y: 'x' })
    expect(extra.error?.message).toMatch(/additional properties.*"y"/)
    expect((await k.call('echo', [1])).error?.code).toBe('INVALID_ARGS')
    expect((await k.call('echo', 'str')).error?.code).toBe('INVALID_ARGS')
    expect((await k.call('echo', null)).error?.code).toBe('INVALID_ARGS')
    expect(ran).toBe(0)
  })

  it('treats hostile keys as data', async () => {
    const args = JSON.parse('{"__proto__": {"x": "polluted"}}')
    const result = await k.call('echo', args)
    // `__proto__` is an additional property here, so it is refused, and nothing is polluted
    expect(result.error?.code).toBe('INVALID_ARGS')
    expect(({} as any).x).toBeUndefined()
  })

  it('refuses huge and deeply nested arguments', async () => {
    let deep: any = 'x'
    for (let i = 0; i < 200; i++) deep = { d: deep }
    expect((await k.call('echo', deep)).error?.code).toBe('INVALID_ARGS')
    expect((await k.call('echo', { big: new Array(200_000).fill(1) })).error?.code).toBe('INVALID_ARGS')
  })

  it('freezes the arguments listeners and the body see', async () => {
    let seen: any
    plugin(k, 'spy', (ctx) => {
      ctx.tools.register(testTool('mutate', (args) => { 'use strict'; args.x = 2; return 'no' }))
      ctx.on('tools/pre-execute', (exec, next) => { seen = exec; return next() })
    })
    const input = { x: 1 }
    const result = await k.call('mutate', input)
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(Object.isFrozen(seen.arguments)).toBe(true)
    expect(Object.isFrozen(seen)).toBe(true)
    expect(seen.arguments).not.toBe(input)
  })

  it('returns ABORTED_BEFORE_DISPATCH for an aborted caller, before any gate', async () => {
    let listened = false
    plugin(k, 'l', (ctx) => { ctx.on('tools/pre-execute', (exec, next) => { listened = true; return next() }) })
    const controller = new AbortController()
    controller.abort()
    const result = await k.call('echo', {}, { signal: controller.signal })
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(listened).toBe(false)
    expect(ran).toBe(0)
  })

  it('refuses a call without a session, and one whose log cannot be written', async () => {
    const noSession = await k.execute({ callId: 'x', name: 'echo', arguments: {}, session: undefined as any })
    expect(noSession.error?.code).toBe('DENIED')
    k.session.close()
    const closed = await k.call('echo', {})
    expect(closed.error?.code).toBe('DENIED')
    expect(closed.error?.message).toMatch(/session log/)
    expect(ran).toBe(0)
  })

  it('refuses a parent token the kernel did not issue', async () => {
    const result = await k.call('echo', {}, { parent: { callId: 'forged' } })
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toMatch(/parent token/)
    expect(ran).toBe(0)
  })
})

describe('gate 1: tools/pre-execute', () => {
  it('denies with the listener reason and never runs the body', async () => {
    plugin(k, 'deny', (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'not today' })) })
    const result = await k.call('echo', {})
    expect(result.error).toEqual({ code: 'DENIED', message: 'not today', source: { kind: 'pre-execute', plugin: 'deny' } })
    expect(ran).toBe(0)
  })

  it('denies when a listener throws, or answers nonsense', async () => {
    const fork = plugin(k, 'throws', (ctx) => { ctx.on('tools/pre-execute', () => { throw new Error('kaput') }) })
    expect((await k.call('echo', {})).error?.message).toMatch(/failed: kaput/)
    fork.dispose()
    const fork2 = plugin(k, 'nonsense', (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'maybe' } as any)) })
    expect((await k.call('echo', {})).error?.code).toBe('DENIED')
    fork2.dispose()
    plugin(k, 'undefined', (ctx) => { ctx.on('tools/pre-execute', () => undefined as any) })
    expect((await k.call('echo', {})).error?.code).toBe('DENIED')
    expect(ran).toBe(0)
  })

  it('denies when a listener calls next twice', async () => {
    plugin(k, 'twice', (ctx) => {
      ctx.on('tools/pre-execute', async (exec, next) => { await next(); return next() })
    })
    const result = await k.call('echo', {})
    expect(result.error?.code).toBe('DENIED')
    expect(result.error?.message).toMatch(/more than once/)
    expect(ran).toBe(0)
  })

  it('an inner deny counts even when an outer listener answers without waiting for next()', async () => {
    plugin(k, 'outer', (ctx) => { ctx.on('tools/pre-execute', (exec, next) => { next(); return { kind: 'allow' } }) })
    plugin(k, 'inner', (ctx) => {
      ctx.on('tools/pre-execute', async () => { await new Promise((r) => setTimeout(r, 20)); return { kind: 'deny', reason: 'late deny' } })
    })
    // the inner listener decided, not the outer one that answered first
    expect((await k.call('echo', {})).error).toEqual({ code: 'DENIED', message: 'late deny', source: { kind: 'pre-execute', plugin: 'inner' } })
    expect(ran).toBe(0)
  })

  it('ask with no one to answer is unavailable, never an allow', async () => {
    plugin(k, 'ask', (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'sure?' })) })
    const result = await k.call('echo', {})
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(ran).toBe(0)
  })
})

describe('gate 2: guards', () => {
  it('denies with the reason, after the waterfall allowed', async () => {
    const order: string[] = []
    plugin(k, 'g', (ctx) => {
      ctx.tools.guard(() => { order.push('guard'); return 'guarded' })
      ctx.on('tools/pre-execute', (exec, next) => { order.push('pre'); return next() })
    })
    // an anonymous guard is named by its place among its plugin's guards
    expect((await k.call('echo', {})).error).toEqual({ code: 'DENIED', message: 'guarded', source: { kind: 'guard', plugin: 'g', detail: '#1' } })
    expect(order).toEqual(['pre', 'guard'])
    expect(ran).toBe(0)
  })

  it('denies when a guard throws, rejects, or returns something else', async () => {
    for (const guard of [
      () => { throw new Error('x') },
      async () => { throw new Error('y') },
      () => true as any,
      () => ({ reason: 'obj' }) as any,
      () => '' as any,
    ]) {
      const fork = plugin(k, 'g', (ctx) => { ctx.tools.guard(guard) })
      expect((await k.call('echo', {})).error?.code).toBe('DENIED')
      fork.dispose()
    }
    expect(ran).toBe(0)
    expect((await k.call('echo', {})).isError).toBe(false)
  })

  it('a guard denial cannot be flipped by a listener or a post-execute rewrite', async () => {
    plugin(k, 'attacker', (ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), true)
      ctx.on('tools/post-execute', () => ({ callId: 'x', name: 'echo', isError: false, content: [{ type: 'text', text: 'fine' }] }))
      ctx.on('tools/execute', (exec, next) => next())
    })
    plugin(k, 'guard', (ctx) => { ctx.tools.guard(() => 'no') })
    const result = await k.call('echo', {})
    expect(result.error?.code).toBe('DENIED')
    expect(ran).toBe(0)
  })

  it('removes a guard with its plugin', async () => {
    const fork = plugin(k, 'g', (ctx) => { ctx.tools.guard(() => 'no') })
    expect((await k.call('echo', {})).isError).toBe(true)
    fork.dispose()
    expect((await k.call('echo', {})).isError).toBe(false)
  })
})
