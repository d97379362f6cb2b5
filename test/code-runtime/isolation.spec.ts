import type { JsonValue } from '@dsh/code-runtime'
import { describe, expect, it } from 'vitest'
import { echo, request, trackingBridge, useRuntime } from './helpers.js'

// one worker: consecutive runs land in the same thread and the same QuickJS instance
const runtime = useRuntime({ workers: 1 })

describe('no ambient authority inside the isolate', () => {
  it('has no process, require, module loading, network, timers or host globals', async () => {
    const code = [
      'return [',
      '  typeof process, typeof require, typeof module, typeof fetch, typeof XMLHttpRequest, typeof WebSocket,',
      '  typeof setTimeout, typeof setInterval, typeof queueMicrotask, typeof Buffer, typeof std, typeof os,',
      '  typeof print, typeof scriptArgs, typeof WebAssembly, typeof Atomics, typeof Deno, typeof Bun,',
      ']',
    ].join('\n')
    const outcome = await runtime().run(request(code))
    expect(outcome).toMatchObject({ ok: true, value: Array(18).fill('undefined') })
  })

  it('fails dynamic import', async () => {
    for (const specifier of ['fs', 'node:child_process', './program.ts', 'data:text/javascript,export default 1']) {
      const outcome = await runtime().run(request(`return await import(${JSON.stringify(specifier)})`))
      expect(outcome).toMatchObject({ ok: false, code: 'THREW' })
      expect(outcome.ok || outcome.message).toMatch(/could not load module/)
    }
  })

  it('rejects static imports as syntax', async () => {
    const outcome = await runtime().run(request('import { readFileSync } from "fs"\nreturn readFileSync("/etc/passwd", "utf8")'))
    expect(outcome).toMatchObject({ ok: false, code: 'SYNTAX' })
  })

  it('finds nothing through the Function constructor chain or eval', async () => {
    const code = [
      'const F = globalThis.constructor.constructor',
      'return [',
      '  F("return typeof process")(),',
      '  F("return this")() === globalThis,',
      '  eval("typeof require"),',
      '  (async () => {}).constructor("return typeof fetch")() instanceof Promise,',
      '  (() => { try { return F("return process")() } catch (e) { return e.name } })(),',
      ']',
    ].join('\n')
    expect(await runtime().run(request(code))).toMatchObject({ ok: true, value: ['undefined', true, 'undefined', true, 'ReferenceError'] })
  })

  it('exposes only standard ECMAScript globals besides tools and console', async () => {
    const outcome = await runtime().run(request('return Object.getOwnPropertyNames(globalThis)'))
    if (!outcome.ok) throw new Error(outcome.message)
    const ecmascript = [
      'AggregateError', 'Array', 'ArrayBuffer', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'Boolean', 'DataView', 'Date',
      'Error', 'EvalError', 'FinalizationRegistry', 'Float16Array', 'Float32Array', 'Float64Array', 'Function', 'Infinity',
      'Int16Array', 'Int32Array', 'Int8Array', 'Iterator', 'JSON', 'Map', 'Math', 'NaN', 'Number', 'Object', 'Promise',
      'Proxy', 'RangeError', 'ReferenceError', 'Reflect', 'RegExp', 'Set', 'SharedArrayBuffer', 'String', 'Symbol',
      'SyntaxError', 'TypeError', 'URIError', 'Uint16Array', 'Uint32Array', 'Uint8Array', 'Uint8ClampedArray', 'WeakMap',
      'WeakRef', 'WeakSet', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'eval',
      'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'undefined', 'unescape',
      // QuickJS's own error class (what an interrupt or out-of-memory throws)
      'InternalError',
    ]
    const extra = (outcome.value as string[]).filter(name => !ecmascript.includes(name))
    expect(extra.sort()).toEqual(['console', 'tools'])
  })
})

describe('prototype pollution through the bridge', () => {
  const polluted = JSON.parse('{"__proto__": {"polluted": 1}, "ok": 1}') as JsonValue

  it('keeps a `__proto__` key of a sub-call result as plain data in the isolate', async () => {
    const outcome = await runtime().run({
      code: [
        'const r = await tools.get({})',
        'return [({} as any).polluted ?? "clean", (Object.prototype as any).polluted ?? "clean",',
        '  Object.keys(r), Object.getPrototypeOf(r) === Object.prototype, r.__proto__.polluted, r.polluted ?? "clean"]',
      ].join('\n'),
      tools: ['get'],
      call: async () => ({ ok: true, value: polluted }),
    })
    expect(outcome).toMatchObject({ ok: true, value: ['clean', 'clean', ['__proto__', 'ok'], true, 1, 'clean'] })
  })

  it('keeps a `__proto__` key from the program as plain data in the host, in arguments and in the return value', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: null }))
    const outcome = await runtime().run({
      code: 'const v = JSON.parse(\'{"__proto__": {"polluted": 1}}\')\nawait tools.put(v)\nreturn v',
      tools: ['put'],
      call: bridge.call,
    })
    expect(outcome.ok).toBe(true)
    for (const value of [outcome.ok && outcome.value, bridge.calls[0]!.args]) {
      expect(Object.keys(value as object)).toEqual(['__proto__'])
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
      expect((value as { polluted?: unknown }).polluted).toBeUndefined()
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('gives every sub-call result fresh objects: mutating one never reaches the host value', async () => {
    const shared = { list: [1] }
    const outcome = await runtime().run({
      code: 'const a = await tools.get({})\na.list.push(2)\nconst b = await tools.get({})\nreturn [a.list, b.list]',
      tools: ['get'],
      call: async () => ({ ok: true, value: shared }),
    })
    expect(outcome).toMatchObject({ ok: true, value: [[1, 2], [1]] })
    expect(shared).toEqual({ list: [1] })
  })

  it('settles sub-calls with the intrinsics captured before the program ran', async () => {
    const code = [
      'JSON.parse = () => ({ forged: true })',
      'JSON.stringify = () => "{}"',
      'Object.defineProperty(Object.prototype, "resolve", { set() { throw new Error("trap") }, configurable: true })',
      ';(Promise.prototype as any).then = function () { throw new Error("trap") }',
      'return (await tools.echo({ n: 1 })).args.n',
    ].join('\n')
    expect(await runtime().run(request(code))).toMatchObject({ ok: true, value: 1 })
  })

  it('lets a program that sabotages the engine break only its own run', async () => {
    // QuickJS's JSON.stringify stores into arrays with [[Set]]: a setter on Array.prototype fires inside it
    const code = [
      'Object.defineProperty(Array.prototype, "0", { set() { throw new Error("trap") }, configurable: true })',
      'Object.defineProperty(Object.prototype, "then", { get() { throw new Error("trap") }, configurable: true })',
      'return (await tools.echo({ n: 1 })).args.n',
    ].join('\n')
    expect(await runtime().run(request(code))).toMatchObject({ ok: false, code: 'THREW' })
    expect(await runtime().run(request('return (await tools.echo({ n: 2 })).args.n'))).toMatchObject({ ok: true, value: 2 })
  })
})

describe('no state between runs', () => {
  it('starts every run in a fresh context', async () => {
    const first = await runtime().run({
      code: [
        ';(globalThis as any).leak = "run 1"',
        ';(Object.prototype as any).inherited = "run 1"',
        'Array.prototype.map = () => ["forged"]',
        // tools is frozen: in strict mode, adding to it throws
        'try { (tools as any).extra = 1 } catch {}',
        'return 1',
      ].join('\n'),
      tools: ['echo'],
      call: echo,
    })
    expect(first).toMatchObject({ ok: true })
    const second = await runtime().run(
      request('return [typeof (globalThis as any).leak, ({} as any).inherited ?? "clean", [1, 2].map(x => x * 2), Object.keys(tools)]'),
    )
    expect(second).toMatchObject({ ok: true, value: ['undefined', 'clean', [2, 4], ['echo']] })
  })
})
