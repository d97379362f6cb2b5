import type { SubCallBridge } from '@dsh/code-runtime'
import { describe, expect, it } from 'vitest'
import { echo, request, sleep, trackingBridge, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 2 })

describe('running a program', () => {
  it('returns the JSON value the program returns', async () => {
    const cases: [string, unknown][] = [
      ['return 1 + 1', 2],
      ['return "text"', 'text'],
      ['return { a: [1, { b: null }], c: true }', { a: [1, { b: null }], c: true }],
      ['return [NaN, -0, 1e21]', [null, 0, 1e21]],
      ['const x = 1', null],
      ['return undefined', null],
      ['return', null],
    ]
    for (const [code, value] of cases) {
      expect(await runtime().run(request(code))).toEqual({ ok: true, value, logs: '' })
    }
  })

  it('runs the program as the body of an async function: top-level await and return', async () => {
    const outcome = await runtime().run(request('const a = await Promise.resolve(20)\nif (a > 10) return a + 1\nreturn 0'))
    expect(outcome).toMatchObject({ ok: true, value: 21 })
  })

  it('carries arguments and results larger than the shared ring (64 KiB), in order among small ones, sequential and parallel', async () => {
    const bridge = trackingBridge((_name, args) => ({ ok: true, value: { back: args } }))
    const code = [
      'const sizes = [10, 200000, 3, 70000, 65536, 1]',
      'const got = []',
      'for (const n of sizes) got.push((await tools.echo({ s: "é".repeat(n) })).back.s.length)',
      'const all = await Promise.all(sizes.map(n => tools.echo({ s: "x".repeat(n) })))',
      'return { got, all: all.map(r => r.back.s.length) }',
    ].join('\n')
    const outcome = await runtime().run({ code, tools: ['echo'], call: bridge.call })
    const sizes = [10, 200000, 3, 70000, 65536, 1]
    expect(outcome).toMatchObject({ ok: true, value: { got: sizes, all: sizes } })
    expect(bridge.calls.map(c => (c.args as { s: string }).s.length)).toEqual([...sizes, ...sizes])
  })

  it('awaits several sub-calls in sequence, each with its arguments and a rising index', async () => {
    const bridge = trackingBridge((name, args) => ({ ok: true, value: { got: args } }))
    const outcome = await runtime().run({
      code: 'const out = []\nfor (const n of [1, 2, 3]) out.push((await tools.lookup({ n })).got.n * 10)\nreturn out',
      tools: ['lookup'],
      call: bridge.call,
    })
    expect(outcome).toMatchObject({ ok: true, value: [10, 20, 30] })
    expect(bridge.calls.map(c => [c.name, c.args, c.index])).toEqual([
      ['lookup', { n: 1 }, 1],
      ['lookup', { n: 2 }, 2],
      ['lookup', { n: 3 }, 3],
    ])
  })

  it('passes `{}` when a tool is called without arguments', async () => {
    expect(await runtime().run(request('return await tools.echo()'))).toMatchObject({ value: { args: {} } })
  })

  it('runs Promise.all sub-calls in parallel, never more than maxParallelSubCalls at once, queueing the rest', async () => {
    const bridge = trackingBridge((_, args) => ({ ok: true, value: args }), 20)
    const outcome = await runtime().run({
      code: 'const all = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.slow({ i })))\nreturn all.map(r => r.i)',
      tools: ['slow'],
      call: bridge.call,
      limits: { maxParallelSubCalls: 3 },
    })
    expect(outcome).toMatchObject({ ok: true, value: Array.from({ length: 20 }, (_, i) => i) })
    expect(bridge.calls).toHaveLength(20)
    expect(bridge.maxInFlight()).toBe(3)
  })

  it('rejects a failed sub-call with an Error carrying the code and message', async () => {
    const outcome = await runtime().run({
      code: [
        'try { await tools.read({ path: "x" }) } catch (e) {',
        '  return [e instanceof Error, e.code, e.message]',
        '}',
      ].join('\n'),
      tools: ['read'],
      call: async () => ({ ok: false, code: 'NOT_FOUND', message: 'no such file: x' }),
    })
    expect(outcome).toMatchObject({ ok: true, value: [true, 'NOT_FOUND', 'no such file: x'] })
  })

  it('fails the sub-call, not the run, when the bridge itself throws', async () => {
    const outcome = await runtime().run({
      code: 'try { await tools.bad({}) } catch (e) { return [e.code, e.message] }',
      tools: ['bad'],
      call: async () => {
        throw new Error('bridge bug')
      },
    })
    expect(outcome).toMatchObject({ ok: true, value: ['TOOL_FAILED', 'bridge bug'] })
  })

  it('takes a bridge that answers synchronously, or answers nothing usable', async () => {
    const outcome = await runtime().run({
      code: 'const a = await tools.sync({})\nconst b = await tools.odd({}).catch(e => e.code)\nreturn [a, b]',
      tools: ['sync', 'odd'],
      call: ((name: string) => (name === 'sync' ? { ok: true, value: 'now' } : undefined)) as unknown as SubCallBridge,
    })
    expect(outcome).toMatchObject({ ok: true, value: ['now', 'TOOL_FAILED'] })
  })

  it('offers only the listed tools: any other name is undefined and calling it a TypeError', async () => {
    const outcome = await runtime().run(
      request(
        [
          'const kinds = [typeof tools.echo, typeof tools.rm, typeof tools.toString, typeof tools.__proto__, Object.keys(tools)]',
          'try { await tools.rm({}) } catch (e) { kinds.push(e.name) }',
          'return kinds',
        ].join('\n'),
      ),
    )
    expect(outcome).toMatchObject({ ok: true, value: ['function', 'undefined', 'undefined', 'undefined', ['echo'], 'TypeError'] })
  })

  it('takes a tool listed twice as one tool', async () => {
    expect(await runtime().run(request('return Object.keys(tools)', { tools: ['echo', 'echo'] }))).toMatchObject({ ok: true, value: ['echo'] })
  })

  it('accepts hostile tool names as plain property names', async () => {
    const outcome = await runtime().run({
      code: 'return [Object.keys(tools), (await tools["__proto__"]({})).name, (await tools.constructor({})).name, ({}).constructor === Object]',
      tools: ['__proto__', 'constructor'],
      call: echo,
    })
    expect(outcome).toMatchObject({ ok: true, value: [['__proto__', 'constructor'], '__proto__', 'constructor', true] })
  })

  it('strips TypeScript: annotations, interfaces, type aliases, enums, generics, assertions', async () => {
    const code = [
      'interface Entry { path: string; size?: number }',
      'type Listing = { entries: Entry[] }',
      'enum Kind { File = "file", Dir = "dir" }',
      'function first<T>(items: readonly T[]): T | undefined { return items[0] }',
      'const listing = (await tools.echo({ entries: [{ path: "a", size: 2 }] })).args as Listing',
      'const entry: Entry = first<Entry>(listing.entries)!',
      'class Box<T> { constructor(private readonly value: T) {} get(): T { return this.value } }',
      'return [entry.path, entry.size satisfies number | undefined, Kind.Dir, new Box(3).get()]',
    ].join('\n')
    expect(await runtime().run(request(code))).toMatchObject({ ok: true, value: ['a', 2, 'dir', 3] })
  })

  it('keeps modern syntax as QuickJS runs it: optional chaining, nullish, class fields, private members', async () => {
    const code = 'class C { #n = 2; static s = 1; get n() { return this.#n } }\nconst o: any = null\nreturn [o?.x ?? "d", new C().n, C.s]'
    expect(await runtime().run(request(code))).toMatchObject({ ok: true, value: ['d', 2, 1] })
  })

  it('runs the program in strict mode, as TypeScript compiles it', async () => {
    const outcome = await runtime().run(request('const f = function (this: unknown) { return this }\nreturn [f() === undefined, eval("1 + 1")]'))
    expect(outcome).toMatchObject({ ok: true, value: [true, 2] })
    expect(await runtime().run(request('// @ts-ignore\nundeclared = 1'))).toMatchObject({ ok: false, code: 'THREW', line: 2 })
  })

  it('does not send sub-calls the program never awaited before finishing', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: null }))
    const outcome = await runtime().run({ code: 'tools.fire({})\nreturn 1', tools: ['fire'], call: bridge.call })
    expect(outcome).toMatchObject({ ok: true, value: 1 })
    expect(bridge.calls).toHaveLength(0)
  })

  it('aborts the signal handed to a sub-call once the run is over', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: null }))
    await runtime().run({ code: 'await tools.a({})\nreturn 1', tools: ['a'], call: bridge.call })
    expect(bridge.calls[0]!.signal.aborted).toBe(true)
  })
})

describe('running programs after the pool rested', () => {
  it('gives the same results for programs of one, two, three and fifty sub-calls, sequential and parallel', async () => {
    const cases: [string, unknown][] = [
      ['return (await tools.echo({ n: 1 })).args.n', 1],
      ['const a = await tools.echo({ n: 1 }); const b = await tools.echo({ n: 2 }); return a.args.n + b.args.n', 3],
      ['let s = 0; for (let i = 1; i <= 3; i++) s += (await tools.echo({ i })).args.i; return s', 6],
      ['let s = 0; for (let i = 1; i <= 50; i++) s += (await tools.echo({ i })).args.i; return s', 1275],
      ['const r = await Promise.all([1, 2, 3].map(i => tools.echo({ i }))); return r.map(x => x.args.i)', [1, 2, 3]],
    ]
    for (const [code, value] of cases) {
      // longer than the 5 ms after which the runtime counts the pool as rested
      await sleep(20)
      expect(await runtime().run(request(code))).toEqual({ ok: true, value, logs: '' })
    }
  })
})

describe("an outcome's settled callback", () => {
  it('runs after the answer is given, in order, even when it throws, and for an answer the ended run drops', async () => {
    const log: string[] = []
    const bridge: SubCallBridge = async (_name, args) => {
      const n = (args as { n: number }).n
      log.push(`answer ${n}`)
      const settled = () => {
        log.push(`settled ${n}`)
        if (n === 2) throw new Error('bookkeeping failed')
      }
      return { ok: true, value: n, settled }
    }
    const outcome = await runtime().run(request('let s = 0\nfor (let n = 1; n <= 3; n++) s += await tools.echo({ n })\nreturn s', { call: bridge }))
    expect(outcome).toEqual({ ok: true, value: 6, logs: '' })
    expect(log).toEqual(['answer 1', 'settled 1', 'answer 2', 'settled 2', 'answer 3', 'settled 3'])

    // a sub-call still in flight when the run ends: its answer is dropped, its callback still runs
    let release!: () => void
    const held = new Promise<void>(resolve => (release = resolve))
    let settledLate = false
    const late: SubCallBridge = async () => {
      await held
      return { ok: true, value: 1, settled: () => void (settledLate = true) }
    }
    const ended = await runtime().run(request('return await tools.echo({})', { call: late, limits: { timeoutMs: 100 } }))
    expect(ended).toMatchObject({ ok: false, code: 'TIMEOUT' })
    release()
    await sleep(20)
    expect(settledLate).toBe(true)
  })
})
