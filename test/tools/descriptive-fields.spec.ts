/**
 * `title`, `annotations` and `outputSchema` on a definition: checked at
 * registration, carried by `schemas()` and `wireSchemas()` (run_code's
 * projection derives its annotations and description from what its programs
 * may call), and the output schema checked against every success value.
 */
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

const lengthSchema = { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'], additionalProperties: false }

describe('registration checks', () => {
  const bad: Array<[string, object, RegExp]> = [
    ['a title that is not a string', { title: 7 }, /title must be a string/],
    ['annotations that are not an object', { annotations: [true] }, /annotations must be an object/],
    ['an unknown annotation', { annotations: { readOnly: true } }, /annotations\.readOnly is not a known annotation/],
    ['an annotation that is not a boolean', { annotations: { readOnlyHint: 'yes' } }, /annotations\.readOnlyHint must be a boolean, got "yes"/],
    ['an outputSchema that is not an object schema', { outputSchema: { type: 'array' } }, /outputSchema must be an object schema/],
    ['an invalid outputSchema', { outputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }, /outputSchema is not a valid JSON Schema/],
  ]
  for (const [what, extra, message] of bad) {
    it(`refuses ${what}, naming the tool and plugin`, () => {
      let error: unknown
      inPlugin('bad-plugin', (ctx) => {
        try { ctx.tools.register(testTool('t', undefined, extra as any)) } catch (e) { error = e }
      })
      expect(KernelError.is(error, 'INVALID_TOOL')).toBe(true)
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message).toMatch(/tool "t" \(plugin bad-plugin\)/)
      expect(k.ctx.tools.get('t')).toBeUndefined()
    })
  }
})

describe('the views', () => {
  it('schemas() carries title, annotations and outputSchema, frozen, and only when declared', () => {
    const annotations = { readOnlyHint: true, openWorldHint: false }
    inPlugin('p', (ctx) => {
      ctx.tools.register(testTool('typed', undefined, { title: 'Typed', annotations, outputSchema: lengthSchema }))
      ctx.tools.register(testTool('bare'))
    })
    annotations.readOnlyHint = false
    const [typed, bare] = k.ctx.tools.schemas()
    expect(typed).toEqual({ name: 'typed', title: 'Typed', description: 'test tool typed', parameters: { type: 'object' }, annotations: { readOnlyHint: true, openWorldHint: false }, outputSchema: lengthSchema })
    expect(Object.isFrozen(typed.annotations)).toBe(true)
    expect(Object.keys(bare).sort()).toEqual(['description', 'name', 'parameters'])
    expect(k.ctx.tools.wireSchemas()[0]).toBe(typed)
  })

  it('run_code is read-only only when every callable tool is, and open-world when any may be', () => {
    k.ctx.tools.setMode('code')
    const fork = inPlugin('p', (ctx) => {
      ctx.tools.register(testTool('look', undefined, { annotations: { readOnlyHint: true, openWorldHint: false } }))
    })
    const onlyReads = k.ctx.tools.wireSchemas()[0]
    expect(onlyReads.name).toBe('run_code')
    expect(onlyReads.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    inPlugin('q', (ctx) => {
      // no hints: MCP's defaults, a tool that may write, destroy and reach the network
      ctx.tools.register(testTool('anything'))
    })
    const withAnything = k.ctx.tools.wireSchemas()[0]
    expect(withAnything.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
    expect(withAnything.description).toMatch(/declare const tools: \{[\s\S]*\n {2}anything\(args: [\s\S]*\n {2}look\(args: /)
    fork.dispose()
    expect(k.ctx.tools.wireSchemas()[0].description).not.toMatch(/look\(args/)
  })

  it('run_code\'s description is byte-identical for an unchanged tool set, whatever the registration order', async () => {
    k.ctx.tools.setMode('code')
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('b')); ctx.tools.register(testTool('a')) })
    const first = k.ctx.tools.wireSchemas()[0].description
    const other = await createTestKernel()
    try {
      other.ctx.tools.setMode('code')
      other.ctx.plugin({ name: 'p', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('a')); ctx.tools.register(testTool('b')) } })
      expect(other.ctx.tools.wireSchemas()[0].description).toBe(first)
    } finally {
      await other.cleanup()
    }
  })
})

describe('the output check', () => {
  const typed = (value: unknown) => testTool('typed', () => ({ value: value as any }), { outputSchema: lengthSchema })

  it('a conforming value passes unchanged', async () => {
    inPlugin('p', (ctx) => { ctx.tools.register(typed({ length: 3 })) })
    const result = await k.call('typed')
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ length: 3 })
  })

  const broken: Array<[string, unknown, RegExp]> = [
    ['a mismatching value', { length: 'three' }, /value\.length must be integer/],
    ['an extra key', { length: 3, more: 1 }, /value must NOT have additional properties \("more"\)/],
    ['no value at all', undefined, /it returned no value/],
    ['an array', [1], /its value is an array, not an object/],
    ['a scalar', 3, /its value is a number, not an object/],
  ]
  for (const [what, value, message] of broken) {
    it(`${what} turns the result into TOOL_FAILED, logged`, async () => {
      inPlugin('p', (ctx) => { ctx.tools.register(typed(value)) })
      const result = await k.call('typed')
      expect(result.isError).toBe(true)
      expect(result.error?.code).toBe('TOOL_FAILED')
      expect(result.error?.message).toMatch(/^typed broke its outputSchema: /)
      expect(result.error?.message).toMatch(message)
      expect(result.value).toBeUndefined()
      await k.session.flush()
      const logged = k.session.events().find((e) => e.type === 'tool/result')
      expect((logged?.data as any).error.code).toBe('TOOL_FAILED')
    })
  }

  it('a post-execute listener\'s replacement value is checked too: it cannot smuggle a mismatch out', async () => {
    inPlugin('p', (ctx) => {
      ctx.tools.register(typed({ length: 3 }))
      ctx.on('tools/post-execute', async ({ result }, next) => {
        await next()
        return { ...result, value: { length: 'smuggled' } }
      })
    })
    const result = await k.call('typed')
    expect(result.error?.code).toBe('TOOL_FAILED')
  })

  it('an error result is left as it is', async () => {
    inPlugin('p', (ctx) => { ctx.tools.register(testTool('typed', () => { throw new Error('boom') }, { outputSchema: lengthSchema })) })
    const result = await k.call('typed')
    expect(result.error).toEqual({ code: 'TOOL_FAILED', message: expect.stringContaining('boom'), source: { kind: 'body', plugin: 'p' } })
  })
})
