import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel
beforeEach(async () => { k = await createTestKernel() })
afterEach(() => k.cleanup())

function inPlugin(name: string, apply: (ctx: Context) => void) {
  return k.ctx.plugin({ name, inject: ['tools'], apply })
}

describe('registration', () => {
  it('registers, resolves and disposes with the owning plugin', async () => {
    const fork = inPlugin('owner', (ctx) => { ctx.tools.register(testTool('echo', (args: any) => `hi ${args.x}`)) })
    expect(k.ctx.tools.get('echo')?.name).toBe('echo')
    expect((await k.call('echo', { x: 1 })).content).toEqual([{ type: 'text', text: 'hi 1' }])
    fork.dispose()
    expect(k.ctx.tools.get('echo')).toBeUndefined()
    expect((await k.call('echo', {})).error?.code).toBe('UNKNOWN_TOOL')
  })

  const bad: Array<[string, any, RegExp]> = [
    ['an invalid name', testTool('1abc'), /name must match/],
    ['a name with a slash', testTool('a/b'), /name must match/],
    ['a 65-character name', testTool('a'.repeat(65)), /name must match/],
    ['the reserved name', testTool('run_code'), /reserved/],
    ['a non-object schema', { ...testTool('t'), parameters: { type: 'string' } }, /object schema/],
    ['an invalid schema', { ...testTool('t'), parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }, /not a valid JSON Schema/],
    ['a missing execute', { name: 't', description: '', parameters: { type: 'object' } }, /execute must be a function/],
    ['a bad timeout', testTool('t', undefined, { timeoutMs: -1 }), /timeoutMs/],
    ['a bad concurrency', testTool('t', undefined, { concurrency: 'sometimes' as any }), /concurrency/],
  ]
  for (const [what, def, message] of bad) {
    it(`refuses ${what}, naming the tool and plugin, registering nothing`, () => {
      let error: unknown
      inPlugin('bad-plugin', (ctx) => {
        try { ctx.tools.register(def) } catch (e) { error = e }
      })
      expect(KernelError.is(error, 'INVALID_TOOL')).toBe(true)
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message).toMatch(/plugin bad-plugin/)
      expect(k.ctx.tools.entries().filter((e) => !e.reserved)).toHaveLength(0)
    })
  }

  it('refuses a name already registered by another plugin and names it', () => {
    inPlugin('first', (ctx) => { ctx.tools.register(testTool('dup')) })
    let error: unknown
    inPlugin('second', (ctx) => {
      try { ctx.tools.register(testTool('dup')) } catch (e) { error = e }
    })
    expect(KernelError.is(error, 'DUPLICATE_TOOL')).toBe(true)
    expect((error as Error).message).toMatch(/already registered by plugin first/)
    expect(k.ctx.tools.entries().filter((e) => !e.reserved).map((e) => e.ownerName)).toEqual(['first'])
  })

  it('keeps its own frozen copy of a definition, and a definition with an own __proto__ key cannot re-prototype it', () => {
    const def: any = JSON.parse('{"name":"p","description":"d","parameters":{"type":"object"},"__proto__":{"execute":"planted"}}')
    def.execute = () => 'ran'
    inPlugin('owner', (ctx) => { ctx.tools.register(def) })
    const kept = k.ctx.tools.get('p') as any
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype)
    expect(Object.isFrozen(kept)).toBe(true)
    def.description = 'changed later'
    expect(kept.description).toBe('d')
  })

  it('a tool registered, disposed on its own, and registered again behaves; the plugin\'s disposal removes the rest once', () => {
    let remove!: () => void
    const fork = inPlugin('owner', (ctx) => {
      remove = ctx.tools.register(testTool('a'))
      ctx.tools.register(testTool('b'))
      ctx.tools.guard(() => undefined)
    })
    remove()
    remove()
    expect(k.ctx.tools.get('a')).toBeUndefined()
    expect(k.ctx.tools.get('b')).toBeDefined()
    inPlugin('other', (ctx) => { ctx.tools.register(testTool('a')) })
    const guards = k.ctx.tools.guards().length
    fork.dispose()
    expect(k.ctx.tools.get('b')).toBeUndefined()
    // the other plugin's "a" is not the disposed one: it stays
    expect(k.ctx.tools.get('a')).toBeDefined()
    expect(k.ctx.tools.guards().length).toBe(guards - 1)
    expect(() => fork.ctx.tools.register(testTool('late'))).toThrow()
    expect(k.ctx.tools.get('late')).toBeUndefined()
  })

  it('treats __proto__ and constructor as ordinary names', async () => {
    expect(k.ctx.tools.get('__proto__')).toBeUndefined()
    expect(k.ctx.tools.get('constructor')).toBeUndefined()
    expect((await k.call('__proto__', {})).error?.code).toBe('UNKNOWN_TOOL')
    expect((await k.call('constructor', {})).error?.code).toBe('UNKNOWN_TOOL')
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('constructor', () => 'c')) })
    expect((await k.call('constructor', {})).content).toEqual([{ type: 'text', text: 'c' }])
  })

  it('emits tools/change once per batch of changes', async () => {
    let changes = 0
    k.ctx.on('tools/change', () => { changes++ })
    const fork = inPlugin('many', (ctx) => {
      for (let i = 0; i < 50; i++) ctx.tools.register(testTool(`t${i}`))
    })
    await Promise.resolve()
    expect(changes).toBe(1)
    fork.dispose()
    await Promise.resolve()
    expect(changes).toBe(2)
  })

  it('adds a tool:<name> prompt section for a tool with guidance, removed with it', async () => {
    const fork = inPlugin('guided', (ctx) => { ctx.tools.register(testTool('g', undefined, { prompt: 'use g wisely' })) })
    expect(k.ctx.systemPrompt.sections().map((s) => s.id)).toContain('tool:g')
    expect(await k.ctx.systemPrompt.assemble()).toContain('use g wisely')
    fork.dispose()
    expect(k.ctx.systemPrompt.sections().map((s) => s.id)).not.toContain('tool:g')
  })
})

describe('views', () => {
  it('caches schemas until the registry changes', () => {
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('a')) })
    const first = k.ctx.tools.schemas()
    expect(k.ctx.tools.schemas()).toBe(first)
    inPlugin('q', (ctx) => { ctx.tools.register(testTool('b')) })
    const second = k.ctx.tools.schemas()
    expect(second).not.toBe(first)
    expect(second.map((s) => s.name)).toEqual(['a', 'b'])
    expect(Object.isFrozen(second[0])).toBe(true)
  })

  it('projects only name, description and parameters', () => {
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('a', undefined, { timeoutMs: 5, prompt: 'x' })) })
    expect(Object.keys(k.ctx.tools.schemas()[0]).sort()).toEqual(['description', 'name', 'parameters'])
  })

  it('wireSchemas follows the mode; get() and schemas() do not', async () => {
    // the kernel's code-mode plugin registers the run_code transport
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('a')) })
    expect(k.ctx.tools.entries().filter((e) => e.reserved)).toHaveLength(1)
    expect(k.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['a'])
    k.ctx.tools.setMode('code')
    expect(k.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['run_code'])
    expect(k.ctx.tools.schemas().map((s) => s.name)).toEqual(['a'])
    expect(k.ctx.tools.get('a')?.name).toBe('a')
    k.ctx.tools.setMode('both')
    expect(k.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['a', 'run_code'])
  })

  it('filters by a visibility scope', () => {
    inPlugin('alpha', (ctx) => { ctx.tools.register(testTool('a')) })
    inPlugin('beta', (ctx) => { ctx.tools.register(testTool('b')) })
    const onlyAlpha = { [Symbol.for('cordis.filter')]: (owner: Context) => owner.name === 'alpha' }
    expect(k.ctx.tools.schemas(onlyAlpha).map((s) => s.name)).toEqual(['a'])
    expect(k.ctx.tools.get('b', onlyAlpha)).toBeUndefined()
  })
})

describe('concurrency classes', () => {
  it('defaults to exclusive and fails closed when a classifier throws', () => {
    inPlugin('p', (ctx) => {
      ctx.tools.register(testTool('plain'))
      ctx.tools.register(testTool('par', undefined, { concurrency: 'parallel' }))
      ctx.tools.register(testTool('dyn', undefined, { concurrency: (args: any) => (args.ro ? 'parallel' : 'exclusive') }))
      ctx.tools.register(testTool('boom', undefined, { concurrency: () => { throw new Error('x') } }))
    })
    expect(k.ctx.tools.concurrency('plain', {})).toBe('exclusive')
    expect(k.ctx.tools.concurrency('par', {})).toBe('parallel')
    expect(k.ctx.tools.concurrency('dyn', { ro: true })).toBe('parallel')
    expect(k.ctx.tools.concurrency('dyn', {})).toBe('exclusive')
    expect(k.ctx.tools.concurrency('boom', {})).toBe('exclusive')
    expect(k.ctx.tools.concurrency('missing', {})).toBe('exclusive')
  })
})
