import { describe, expect, it } from 'vitest'
import { request, useRuntime } from './helpers.js'

// a small cap keeps the runaway-allocation tests quick
const runtime = useRuntime({ workers: 1, terminateAfterMs: 300, limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 10_000 } })

describe('memory cap', () => {
  const runaway: [string, string][] = [
    ['arrays', 'const keep = []\nfor (;;) keep.push(new Array(1e5).fill(1))'],
    ['strings', 'const keep = []\nfor (let i = 0; ; i++) keep.push("x".repeat(1e5) + i)'],
    ['typed arrays', 'const keep = []\nfor (;;) keep.push(new Uint8Array(1 << 20))'],
    ['objects', 'const keep = []\nfor (let i = 0; ; i++) keep.push({ i, s: String(i) })'],
  ]

  for (const [what, code] of runaway) {
    it(`ends a run that allocates ${what} without bound with MEMORY, and the runtime still works`, async () => {
      const outcome = await runtime().run(request(code))
      expect(outcome).toMatchObject({ ok: false, code: 'MEMORY', message: 'the program used more than its 16777216 bytes of memory' })
      expect(await runtime().run(request('return (await tools.echo({ n: 1 })).args.n'))).toMatchObject({ ok: true, value: 1 })
    })
  }

  it('reports MEMORY even when the program catches the out-of-memory error', async () => {
    const code = 'const keep = []\ntry { for (;;) keep.push(new Array(1e5).fill(1)) } catch (e) { keep.length = 0; return "survived" }'
    expect(await runtime().run(request(code))).toMatchObject({ ok: false, code: 'MEMORY' })
  })

  it('refuses one allocation larger than the cap', async () => {
    expect(await runtime().run(request('return new ArrayBuffer(64 * 1024 * 1024).byteLength'))).toMatchObject({ ok: false, code: 'MEMORY' })
  })

  it('lets a program use memory below the cap, run after run', async () => {
    for (let i = 0; i < 3; i++) {
      const outcome = await runtime().run(request('const a = new Array(1e6).fill(1)\nreturn a.length'))
      expect(outcome).toMatchObject({ ok: true, value: 1e6 })
    }
  })

  it('applies a per-run memory cap', async () => {
    const code = 'const a = new Array(1e6).fill(1)\nreturn a.length'
    expect(await runtime().run(request(code, { limits: { memoryBytes: 4 * 1024 * 1024 } }))).toMatchObject({ ok: false, code: 'MEMORY' })
    expect(await runtime().run(request(code))).toMatchObject({ ok: true })
  })
})

describe('deep recursion', () => {
  const deep: [string, string][] = [
    ['a function calling itself', 'function f(n: number): number {\n  return f(n + 1) + 1\n}\nreturn f(0)'],
    ['getters', 'const o = { get x(): unknown { return this.x } }\nreturn o.x'],
    ['toString', 'const o = { toString(): string { return String(o) } }\nreturn String(o)'],
    ['a Proxy chain', 'let p: object = {}\nfor (let i = 0; i < 1e5; i++) p = new Proxy(p, {})\nreturn (p as any).x'],
    ['JSON.parse', 'return JSON.parse("[".repeat(1e5) + "]".repeat(1e5))'],
    ['nested arrays turned to a string', 'let a: any[] = []\nconst root = a\nfor (let i = 0; i < 1e5; i++) { const n: any[] = []; a.push(n); a = n }\nreturn String(root).length'],
  ]

  for (const [what, code] of deep) {
    it(`stops ${what} with an error, not a crash`, async () => {
      const outcome = await runtime().run(request(code))
      expect(outcome).toMatchObject({ ok: false })
      expect(outcome.ok || outcome.message).toMatch(/stack overflow/)
      expect(await runtime().run(request('return 1'))).toMatchObject({ ok: true, value: 1 })
    })
  }

  it('lets a program recurse a reasonable depth', async () => {
    const outcome = await runtime().run(request('function depth(n: number): number { return n === 0 ? 0 : 1 + depth(n - 1) }\nreturn depth(1000)'))
    expect(outcome).toMatchObject({ ok: true, value: 1000 })
  })
})

describe('a worker stuck where QuickJS does not interrupt', () => {
  // JSON.stringify of a very deep object runs for seconds inside one C call, never polling the interrupt handler
  const stuck = 'const o: any = {}\nlet p = o\nfor (let i = 0; i < 1e5; i++) { p.x = {}; p = p.x }\nreturn JSON.stringify(o).length'

  it('answers at the deadline, terminates the worker, and the next run works', async () => {
    const started = performance.now()
    const outcome = await runtime().run(request(stuck, { limits: { timeoutMs: 300 } }))
    expect(outcome).toEqual({ ok: false, code: 'TIMEOUT', message: 'the program ran past its deadline of 300 ms', logs: '' })
    expect(performance.now() - started).toBeLessThan(300 + 1000)
    // the replacement worker starts warm and takes the next run
    expect(await runtime().run(request('return (await tools.echo({ n: 2 })).args.n'))).toMatchObject({ ok: true, value: 2 })
  })

  it('answers an abort within 100 ms even then', async () => {
    const controller = new AbortController()
    const pending = runtime().run(request(stuck, { signal: controller.signal }))
    await new Promise(resolve => setTimeout(resolve, 300))
    const aborted = performance.now()
    controller.abort()
    expect(await pending).toMatchObject({ ok: false, code: 'ABORTED' })
    expect(performance.now() - aborted).toBeLessThan(100 + 100)
    expect(await runtime().run(request('return 3'))).toMatchObject({ ok: true, value: 3 })
  })
})
