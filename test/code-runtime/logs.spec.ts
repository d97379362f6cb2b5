import { describe, expect, it } from 'vitest'
import { request, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 1 })

describe('console output', () => {
  it('captures console.log (and its siblings) one line per call, values as JSON', async () => {
    const code = [
      'console.log("plain", 1, true, null, undefined)',
      'console.log({ a: [1, "x"] })',
      'console.error(new TypeError("bad"))',
      'console.info(() => 1, function named() {}, 10n, Symbol("s"))',
      'const cyclic: any = {}; cyclic.self = cyclic',
      'console.warn(cyclic)',
      'return 0',
    ].join('\n')
    const outcome = await runtime().run(request(code))
    expect(outcome).toEqual({
      ok: true,
      value: 0,
      logs: [
        'plain 1 true null undefined',
        '{"a":[1,"x"]}',
        'TypeError: bad',
        '[Function (anonymous)] [Function named] 10 Symbol(s)',
        '[object Object]',
        '',
      ].join('\n'),
    })
  })

  it('keeps the logs of a run that fails', async () => {
    const outcome = await runtime().run(request('console.log("before")\nthrow new Error("after")'))
    expect(outcome).toMatchObject({ ok: false, code: 'THREW', logs: 'before\n' })
  })

  it('caps the output at maxLogBytes, cut on a character boundary, with a marker', async () => {
    const code = 'for (let i = 0; i < 1000; i++) console.log("é".repeat(30))\nreturn "done"'
    const outcome = await runtime().run(request(code, { limits: { maxLogBytes: 100 } }))
    expect(outcome).toMatchObject({ ok: true, value: 'done' })
    const [kept, marker] = outcome.logs.split(/\n(?=\[console output truncated)/)
    expect(Buffer.byteLength(kept! + '\n')).toBeLessThanOrEqual(100)
    expect(kept).not.toContain('\uFFFD')
    expect(kept!.startsWith('é'.repeat(30) + '\n')).toBe(true)
    expect(marker).toBe('[console output truncated at 100 bytes]\n')
  })

  it('stops paying for output once the cap is reached', async () => {
    const code = 'const t = Date.now()\nfor (let i = 0; i < 20000; i++) console.log({ i, pad: "x".repeat(100) })\nreturn Date.now() - t'
    const outcome = await runtime().run(request(code, { limits: { maxLogBytes: 1000 } }))
    expect(outcome).toMatchObject({ ok: true })
    expect(outcome.logs.length).toBeLessThan(1100)
  })

  it('formats with the intrinsics of a pristine context, whatever the program replaced', async () => {
    const code = [
      ';(globalThis as any).String = () => "forged"',
      'JSON.stringify = () => "forged"',
      'console.log({ a: 1 }, new TypeError("x"), 2)',
      'throw new Error("boom")',
    ].join('\n')
    expect(await runtime().run(request(code))).toEqual({ ok: false, code: 'THREW', message: 'Error: boom', line: 4, logs: '{"a":1} TypeError: x 2\n' })
  })

  it('lets the program replace console without reaching the capture', async () => {
    const outcome = await runtime().run(request('console.log("kept")\nconsole = { log() {} } as any\nconsole.log("gone")\nreturn 1'))
    expect(outcome).toMatchObject({ ok: true, logs: 'kept\n' })
  })
})
