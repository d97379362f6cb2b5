import { describe, expect, it } from 'vitest'
import { PassThrough } from 'node:stream'
import { jsonSafe, REDACTED, scopeStatus } from '@dsh/tool-cordis'

describe('jsonSafe (plugin configs in the snapshot)', () => {
  it('copies plain JSON unchanged', () => {
    const value = { a: 1, b: 'x', c: [true, null, { d: -2.5 }], e: {} }
    expect(jsonSafe(value)).toEqual(value)
    expect(jsonSafe(value)).not.toBe(value)
  })

  it('describes what JSON cannot carry instead of throwing', () => {
    const cycle: Record<string, unknown> = { name: 'loop' }
    cycle.self = cycle
    const out = jsonSafe({
      fn: function hook() {},
      arrow: () => {},
      big: 12n,
      nan: NaN,
      inf: -Infinity,
      sym: Symbol('s'),
      undef: undefined,
      date: new Date(0),
      map: new Map([[1, 2]]),
      stream: new PassThrough(),
      cycle,
    })
    expect(out).toEqual({
      fn: '[function hook]',
      arrow: '[function arrow]',
      big: '[BigInt 12]',
      nan: '[NaN]',
      inf: '[-Infinity]',
      sym: '[Symbol(s)]',
      undef: null,
      date: '[Date]',
      map: '[Map]',
      stream: '[PassThrough]',
      cycle: { name: 'loop', self: '[circular]' },
    })
    expect(() => JSON.stringify(out)).not.toThrow()
  })

  it('a value seen twice without a cycle is copied twice, not called circular', () => {
    const shared = { x: 1 }
    expect(jsonSafe({ a: shared, b: [shared, shared] })).toEqual({ a: { x: 1 }, b: [{ x: 1 }, { x: 1 }] })
  })

  it('redacts keys that look like credentials, at any depth', () => {
    const out = jsonSafe({ apiKey: 'k1', api_key: 'k2', nested: { password: 'p', authToken: 't', list: [{ clientSecret: 's' }] }, credentials: { user: 'u', pass: 'q' }, maxTokens: 4096, keep: 'visible', secret: '' }) as any
    expect(out.apiKey).toBe(REDACTED)
    expect(out.api_key).toBe(REDACTED)
    expect(out.nested.password).toBe(REDACTED)
    expect(out.nested.authToken).toBe(REDACTED)
    expect(out.nested.list[0].clientSecret).toBe(REDACTED)
    expect(out.credentials).toBe(REDACTED)
    // a number next to the word is not a credential
    expect(out.maxTokens).toBe(4096)
    expect(out.keep).toBe('visible')
    // an empty value hides nothing
    expect(out.secret).toBe('')
    expect(JSON.stringify(out)).not.toMatch(/k1|k2|"p"|"t"|"s"|"u"|"q"/)
  })

  it('never calls a getter', () => {
    let calls = 0
    const value = { plain: 1, get computed() { calls++; return 'boom' } }
    expect(jsonSafe(value)).toEqual({ plain: 1, computed: '[getter]' })
    expect(calls).toBe(0)
  })

  it('keeps a __proto__ key as data and limits depth and width', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}}')
    const out = jsonSafe(hostile) as Record<string, unknown>
    expect(Object.keys(out)).toEqual(['__proto__'])
    expect(({} as any).polluted).toBeUndefined()
    let deep: unknown = 'bottom'
    for (let i = 0; i < 20; i++) deep = { d: deep }
    expect(JSON.stringify(jsonSafe(deep))).toContain('[too deep]')
    const wide = jsonSafe(Array.from({ length: 250 }, (_, i) => i)) as unknown[]
    expect(wide).toHaveLength(201)
    expect(wide[200]).toBe('[50 more]')
  })
})

describe('scopeStatus', () => {
  it('maps cordis scope states, a runtime error counting as failed', () => {
    expect(scopeStatus(undefined)).toEqual({ status: 'disposed' })
    expect(scopeStatus({ uid: null, status: 2 })).toEqual({ status: 'disposed' })
    expect(scopeStatus({ uid: 1, status: 0 })).toEqual({ status: 'pending' })
    expect(scopeStatus({ uid: 1, status: 1 })).toEqual({ status: 'loading' })
    expect(scopeStatus({ uid: 1, status: 2 })).toEqual({ status: 'active' })
    expect(scopeStatus({ uid: 1, status: 2, runtime: { uid: 1, status: 2, hasError: true, error: new Error('apply threw') } })).toEqual({ status: 'failed', error: 'apply threw' })
    expect(scopeStatus({ uid: 1, status: 3 })).toEqual({ status: 'failed' })
  })
})
