// Equal schemas share one compiled check: by content, not by object (Ajv's own cache holds every
// schema object it compiled for as long as it lives, so a plugin reloaded with fresh objects
// compiled and kept each tool's validator again).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
// the validator cache is private to @dsh/tools: tested here on purpose
import { compileCheck } from '../../core/tools/src/validate.js'

const schema = () => ({ type: 'object', properties: { n: { type: 'number' }, s: { type: 'string', minLength: 2 } }, required: ['n'] })

describe('compiled argument checks', () => {
  it('are shared between equal schemas and not between different ones', () => {
    const first = compileCheck(schema())
    expect(compileCheck(schema())).toBe(first)
    expect(compileCheck({ ...schema(), required: ['s'] })).not.toBe(first)
    // what is checked is part of the key: the same schema checks a value under another name
    const output = compileCheck(schema(), 'value')
    expect(output).not.toBe(first)
    expect(first({ s: 'ab' })).toBe("arguments must have required property 'n'")
    expect(output({ s: 'ab' })).toBe("value must have required property 'n'")
    expect(first({ n: 1, s: 'ab' })).toBeUndefined()
  })

  it('are not shared for a schema that is not plain JSON, and an unusable schema is not kept', () => {
    const odd = { type: 'object', properties: { n: { type: 'number', description: undefined } } } as any
    expect(compileCheck(odd)).not.toBe(compileCheck(odd))
    const bad = { type: 'object', properties: { n: { type: 'nonsense' } } } as any
    const refused = compileCheck(bad)
    expect(refused({})).toMatch(/parameters schema is not a valid JSON Schema/)
    expect(compileCheck(bad)).not.toBe(refused)
  })
})

describe('tools with equal schemas', () => {
  let k: TestKernel
  beforeEach(async () => { k = await createTestKernel() })
  afterEach(() => k.cleanup())

  it('each validate their own calls, also after their plugin was reloaded with fresh schema objects', async () => {
    const plug = () => k.ctx.plugin({
      name: 'equal-schemas',
      inject: ['tools'],
      apply(ctx) {
        ctx.tools.register(testTool('one', () => 'one', { parameters: schema() }))
        ctx.tools.register(testTool('two', () => 'two', { parameters: schema() }))
      },
    })
    for (let round = 0; round < 2; round++) {
      const fork = plug()
      await k.ctx.lifecycle.flush()
      expect((await k.call('one', { n: 1 })).content).toEqual([{ type: 'text', text: 'one' }])
      expect((await k.call('two', { n: 2, s: 'xy' })).content).toEqual([{ type: 'text', text: 'two' }])
      const refused = await k.call('two', { n: 'x' })
      expect(refused.error).toMatchObject({ code: 'INVALID_ARGS', message: 'two: arguments.n must be number' })
      expect((await k.call('one', { n: 3, s: 'x' })).error).toMatchObject({ code: 'INVALID_ARGS', message: 'one: arguments.s must NOT have fewer than 2 characters' })
      fork.dispose()
    }
  })
})
