import { describe, expect, it } from 'vitest'
import { never, request, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 1 })

describe('programs that fail', () => {
  it('reports a TypeScript syntax error with its line in the program', async () => {
    const outcome = await runtime().run(request('const a = 1\nconst b: = 2\nreturn a'))
    expect(outcome).toMatchObject({ ok: false, code: 'SYNTAX', line: 2, logs: '' })
    expect(outcome.ok || outcome.message).toMatch(/Unexpected token at line 2:/)
  })

  it('reports a syntax error only QuickJS sees (sucrase lets it through) with its line', async () => {
    const outcome = await runtime().run(request('const x = 1\n\nconst x = 2\nreturn x'))
    expect(outcome).toMatchObject({ ok: false, code: 'SYNTAX', line: 3 })
    expect(outcome.ok || outcome.message).toMatch(/^SyntaxError: /)
  })

  it('puts an error on the wrapper lines on the program last line', async () => {
    expect(await runtime().run(request('if (true) {\n  return 1\n'))).toMatchObject({ ok: false, code: 'SYNTAX', line: 3 })
  })

  it('reports an uncaught throw with its message and line', async () => {
    const outcome = await runtime().run(request('const a = 1\nfunction f() {\n  throw new RangeError("too far")\n}\nf()'))
    expect(outcome).toEqual({ ok: false, code: 'THREW', message: 'RangeError: too far', line: 3, logs: '' })
  })

  it('reports a runtime TypeError from QuickJS with its line', async () => {
    const outcome = await runtime().run(request('const o: any = null\n\nreturn o.x'))
    expect(outcome).toMatchObject({ ok: false, code: 'THREW', line: 3 })
    expect(outcome.ok || outcome.message).toMatch(/^TypeError: /)
  })

  it('reports a rethrown sub-call error with its code', async () => {
    const outcome = await runtime().run({
      code: 'await tools.read({})',
      tools: ['read'],
      call: async () => ({ ok: false, code: 'DENIED', message: 'not allowed' }),
    })
    expect(outcome).toMatchObject({ ok: false, code: 'THREW', message: 'Error [DENIED]: not allowed' })
  })

  it('reports thrown non-errors readably', async () => {
    expect(await runtime().run(request('throw "plain"'))).toMatchObject({ code: 'THREW', message: 'plain' })
    expect(await runtime().run(request('throw { code: 42 }'))).toMatchObject({ code: 'THREW', message: '{"code":42}' })
    expect(await runtime().run(request('throw null'))).toMatchObject({ code: 'THREW', message: 'null' })
  })

  it('survives a thrown value whose getters throw', async () => {
    const code = 'const e = new Error("x")\nObject.defineProperty(e, "message", { get() { throw 1 } })\nthrow e'
    expect(await runtime().run(request(code))).toMatchObject({ ok: false, code: 'THREW', message: 'the program threw a value that cannot be printed' })
  })

  it('refuses a return value JSON cannot represent, with a clear message', async () => {
    const fn = await runtime().run(request('return () => 1'))
    expect(fn).toMatchObject({ ok: false, code: 'THREW' })
    expect(fn.ok || fn.message).toBe('the return value is not JSON-serializable: TypeError: the program returned a function, which JSON cannot represent')
    const big = await runtime().run(request('return 10n'))
    expect(big.ok || big.message).toMatch(/^the return value is not JSON-serializable: TypeError: /)
    const cyclic = await runtime().run(request('const o: any = {}\no.o = o\nreturn o'))
    expect(cyclic).toMatchObject({ ok: false, code: 'THREW' })
  })

  it('ends at once a program that awaits something nothing can settle', async () => {
    const started = performance.now()
    const outcome = await runtime().run(request('await new Promise(() => {})', { limits: { timeoutMs: 10_000 } }))
    expect(outcome).toMatchObject({ ok: false, code: 'THREW' })
    expect(outcome.ok || outcome.message).toMatch(/nothing can settle/)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it('waits, though, while a sub-call is in flight', async () => {
    const outcome = await runtime().run(request('await tools.never({})', { tools: ['never'], call: never, limits: { timeoutMs: 300 } }))
    expect(outcome).toMatchObject({ ok: false, code: 'TIMEOUT' })
  })
})
