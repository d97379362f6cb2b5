import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { canonicalJson, deepFreeze, freezeSnapshot, frozenSnapshot, jsonEqual, NotJsonError, snapshot } from '@dsh/kernel'

describe('snapshot', () => {
  it('copies plain JSON', () => {
    const input = { a: [1, 'x', null, true, { b: 2.5 }] }
    const copy = snapshot(input)
    expect(copy).toEqual(input)
    expect(copy).not.toBe(input)
  })

  const rejected: Array<[string, unknown, RegExp]> = [
    ['BigInt', { a: 1n }, /BigInt at \$\.a/],
    ['function', { f: () => 1 }, /function at \$\.f/],
    ['Date', { d: new Date(0) }, /Date at \$\.d/],
    ['NaN', [NaN], /NaN at \$\[0\]/],
    ['Infinity', { x: Infinity }, /Infinity/],
    ['Map', { m: new Map() }, /Map/],
    ['undefined member', { u: undefined }, /undefined at \$\.u/],
    ['symbol', { s: Symbol('x') }, /symbol/],
    ['class instance', { c: new (class Foo {})() }, /Foo/],
    ['sparse array', { a: [1, , 3] }, /hole/],
    ['symbol key', { [Symbol('k')]: 1 }, /symbol keys/],
  ]
  for (const [what, value, message] of rejected) {
    it(`rejects ${what} with its path`, () => {
      expect(() => snapshot(value)).toThrow(NotJsonError)
      expect(() => snapshot(value)).toThrow(message)
    })
  }

  it('rejects cycles but accepts shared references', () => {
    const a: any = { x: 1 }
    a.self = a
    expect(() => snapshot(a)).toThrow(/cycle at \$\.self/)
    const shared = { y: 1 }
    expect(snapshot({ p: shared, q: shared })).toEqual({ p: { y: 1 }, q: { y: 1 } })
  })

  it('rejects accessors without running them', () => {
    let ran = false
    const value = Object.defineProperty({}, 'x', { get: () => { ran = true; return 1 }, enumerable: true })
    expect(() => snapshot(value)).toThrow(/accessor/)
    expect(ran).toBe(false)
  })

  it('bounds depth and size', () => {
    let deep: any = 0
    for (let i = 0; i < 100; i++) deep = [deep]
    expect(() => snapshot(deep)).toThrow(/nesting deeper than 64/)
    expect(() => snapshot(new Array(200_000).fill(0))).toThrow(/more than 100000 values/)
  })

  it('keeps a hostile __proto__ key as data, never as the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}')
    const copy = snapshot<any>(hostile)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect(copy.polluted).toBeUndefined()
    expect(({} as any).polluted).toBeUndefined()
    expect(JSON.stringify(copy)).toBe(JSON.stringify(hostile))
  })

  it('normalises -0 to 0', () => {
    expect(Object.is(snapshot(-0), 0)).toBe(true)
  })

  it('round-trips any JSON value', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      expect(JSON.stringify(snapshot(value))).toBe(JSON.stringify(value))
    }))
  })
})

describe('deepFreeze', () => {
  it('freezes every level', () => {
    const value = frozenSnapshot<any>({ a: { b: [1, { c: 2 }] } })
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.a.b[1])).toBe(true)
    expect(() => { 'use strict'; value.a.b[1].c = 3 }).toThrow(TypeError)
  })

  it('returns primitives unchanged', () => {
    expect(deepFreeze(3)).toBe(3)
    expect(deepFreeze(null)).toBe(null)
  })
})

describe('canonicalJson', () => {
  it('sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}')
  })

  it('is equal for reordered objects', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (dict) => {
      const reversed = Object.fromEntries(Object.entries(dict).reverse())
      expect(canonicalJson(reversed)).toBe(canonicalJson(dict))
    }))
  })
})

describe('jsonEqual', () => {
  it('says what comparing canonical texts says, for any two JSON values', () => {
    const value = fc.jsonValue({ maxDepth: 4 })
    fc.assert(fc.property(value, value, (a, b) => {
      expect(jsonEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b))
    }))
  })

  it('ignores key order and tells arrays from objects and null from missing', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true)
    expect(jsonEqual([1, 2], { 0: 1, 1: 2 })).toBe(false)
    expect(jsonEqual({ a: null }, {})).toBe(false)
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual({ __proto__: 1 } as any, JSON.parse('{"__proto__":1}'))).toBe(false)
    expect(jsonEqual(JSON.parse('{"__proto__":1}'), JSON.parse('{"__proto__":1}'))).toBe(true)
  })
})

describe('deepFreeze and freezeSnapshot', () => {
  it('deepFreeze freezes below a shallowly frozen object, and survives cycles', () => {
    const inner = { list: [1] }
    const top = Object.freeze({ inner })
    deepFreeze(top)
    expect(Object.isFrozen(inner.list)).toBe(true)
    const cyclic: any = { a: {} }
    cyclic.a.back = cyclic
    deepFreeze(cyclic)
    expect(Object.isFrozen(cyclic.a)).toBe(true)
  })

  it('freezeSnapshot freezes every level of a snapshot', () => {
    const copy = freezeSnapshot(snapshot<any>({ a: [{ b: 1 }], c: { d: {} } }))
    expect([copy, copy.a, copy.a[0], copy.c, copy.c.d].every((v) => Object.isFrozen(v))).toBe(true)
  })
})
