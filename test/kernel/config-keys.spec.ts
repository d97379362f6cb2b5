import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { KernelError, rejectUnknownKeys } from '@dsh/kernel'
import { resolveApprovalConfig } from '@dsh/approval'
import { createKernel } from 'dsh'

const schema = Schema.object({
  mode: Schema.string(),
  limits: Schema.object({ max: Schema.natural() }),
  free: Schema.dict(Schema.any()),
})

function refusal(run: () => unknown): KernelError {
  try {
    run()
  } catch (error) {
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    return error as KernelError
  }
  throw new Error('expected INVALID_CONFIG')
}

describe('rejectUnknownKeys (one check for every config)', () => {
  it('names the first unknown key as a dotted path under the given prefix', () => {
    expect(refusal(() => rejectUnknownKeys(schema, { limits: { max: 1, mx: 2 } }, 'plugin')).message).toBe('unknown key plugin.limits.mx')
    expect(refusal(() => rejectUnknownKeys(schema, { mood: 1 }, '')).message).toBe('unknown key mood')
    expect(refusal(() => rejectUnknownKeys(schema, { mood: 1 }, '')).details).toEqual({ path: 'mood' })
  })

  it('accepts known keys, and leaves a dict\'s own keys and non-objects alone', () => {
    expect(() => rejectUnknownKeys(schema, { mode: 'x', limits: { max: 1 }, free: { anything: 1 } }, '')).not.toThrow()
    expect(() => rejectUnknownKeys(schema, undefined, '')).not.toThrow()
    expect(() => rejectUnknownKeys(schema, 'text', '')).not.toThrow()
  })

  it('prototype names are keys like any other: constructor, toString and __proto__ are refused', () => {
    for (const key of ['constructor', 'toString', 'hasOwnProperty']) {
      expect(refusal(() => rejectUnknownKeys(schema, { [key]: 1 }, 'x')).message).toBe(`unknown key x.${key}`)
    }
    expect(refusal(() => rejectUnknownKeys(schema, JSON.parse('{"__proto__": {"polluted": 1}}'), 'x')).message).toBe('unknown key x.__proto__')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('the approval, sandbox and kernel configs all refuse an unknown key with it, prototype names included', async () => {
    expect(refusal(() => resolveApprovalConfig({ constructor: 1 })).message).toBe('unknown key approval.constructor')
    await expect(createKernel({ sandbox: { toString: 1 } as any })).rejects.toThrow(/unknown key sandbox\.toString/)
    await expect(createKernel({ approval: { polcy: 'ask' } as any })).rejects.toThrow(/unknown key approval\.polcy/)
  })
})
