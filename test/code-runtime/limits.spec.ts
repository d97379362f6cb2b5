import { CodeRuntime, defaultCodeLimits, resolveLimits } from '@dsh/code-runtime'
import { describe, expect, it } from 'vitest'
import { echo, request, trackingBridge, useRuntime } from './helpers.js'

const runtime = useRuntime({ workers: 1, limits: { maxSubCalls: 5, maxValueBytes: 1000 } })

describe('sub-call limits', () => {
  it('rejects the sub-calls past maxSubCalls with code LIMIT, after the bridge saw exactly maxSubCalls', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: 'fine' }))
    const code = [
      'const seen = []',
      'for (let i = 0; i < 7; i++) {',
      '  try { seen.push(await tools.t({ i })) } catch (e) { seen.push(e.code) }',
      '}',
      'return seen',
    ].join('\n')
    const outcome = await runtime().run({ code, tools: ['t'], call: bridge.call })
    expect(outcome).toMatchObject({ ok: true, value: ['fine', 'fine', 'fine', 'fine', 'fine', 'LIMIT', 'LIMIT'] })
    expect(bridge.calls.map(c => c.index)).toEqual([1, 2, 3, 4, 5])
  })

  it('ends the run LIMIT when the program lets a limit error escape', async () => {
    const outcome = await runtime().run(request('for (let i = 0; i < 6; i++) await tools.echo({ i })'))
    expect(outcome).toMatchObject({ ok: false, code: 'LIMIT', message: 'Error [LIMIT]: tools.echo: more than 5 sub-calls in one run' })
  })

  it('counts parallel sub-calls too', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: 1 }))
    const code = 'const r = await Promise.allSettled(Array.from({ length: 8 }, () => tools.t({})))\nreturn r.map(x => x.status)'
    const outcome = await runtime().run({ code, tools: ['t'], call: bridge.call })
    expect(outcome).toMatchObject({ ok: true, value: [...Array(5).fill('fulfilled'), ...Array(3).fill('rejected')] })
    expect(bridge.calls).toHaveLength(5)
  })

  it('a program cannot forge the mark of a runtime limit error', async () => {
    const outcome = await runtime().run(request('const e: any = new Error("fake")\ne.code = "LIMIT"\nthrow e'))
    expect(outcome).toMatchObject({ ok: false, code: 'THREW', message: 'Error [LIMIT]: fake' })
  })
})

describe('value size limits (maxValueBytes, in UTF-8 bytes)', () => {
  it('rejects arguments over the limit without calling the bridge', async () => {
    const bridge = trackingBridge(() => ({ ok: true, value: 1 }))
    const code = [
      'const out = []',
      'for (const text of ["a".repeat(2000), "é".repeat(600)]) {',
      '  try { await tools.t({ text }) } catch (e) { out.push([e.code, e.message]) }',
      '}',
      'return out',
    ].join('\n')
    const outcome = await runtime().run({ code, tools: ['t'], call: bridge.call })
    expect(outcome).toMatchObject({
      ok: true,
      value: [
        ['LIMIT', 'tools.t: the arguments are over the limit of 1000 bytes'],
        // 600 two-byte characters: under 1000 UTF-16 units, over 1000 bytes
        ['LIMIT', 'tools.t: the arguments are 1211 bytes, over the limit of 1000'],
      ],
    })
    expect(bridge.calls).toHaveLength(0)
  })

  it('bounds the argument bytes the host holds for unanswered sub-calls by memoryBytes', async () => {
    // the slow sub-calls stay unanswered until the fourth fast one
    let fast = 0
    let release!: () => void
    const gate = new Promise<void>(resolve => (release = resolve))
    const slow = trackingBridge(() => ({ ok: true, value: 'sent' }))
    const code = [
      'const text = "x".repeat(1e6)',
      'const slow: Promise<unknown>[] = []',
      'for (let round = 0; round < 4; round++) {',
      '  for (let i = 0; i < 3; i++) slow.push(tools.slow({ text }).catch(e => e.code))',
      '  await tools.fast({})',
      '}',
      'return Promise.all(slow)',
    ].join('\n')
    const outcome = await runtime().run({
      code,
      tools: ['slow', 'fast'],
      call: async (name, args, index, signal) => {
        if (name === 'fast') {
          if (++fast === 4) release()
          return { ok: true, value: null }
        }
        await gate
        return slow.call(name, args, index, signal)
      },
      limits: { memoryBytes: 8 * 1024 * 1024, maxValueBytes: 1_100_000, maxSubCalls: 20, maxParallelSubCalls: 20 },
    })
    // 1,000,011 bytes each: eight fit in 8 MiB; the rest are refused while those are unanswered
    expect(outcome).toMatchObject({ ok: true, value: [...Array(8).fill('sent'), ...Array(4).fill('LIMIT')] })
    expect(slow.calls).toHaveLength(8)
  })

  it('rejects a bridge result over the limit', async () => {
    const outcome = await runtime().run({
      code: 'try { await tools.big({}) } catch (e) { return [e.code, e.message] }',
      tools: ['big'],
      call: async () => ({ ok: true, value: 'x'.repeat(5000) }),
    })
    expect(outcome).toMatchObject({ ok: true, value: ['LIMIT', 'tools.big: the result is 5002 bytes of JSON, over the limit of 1000'] })
  })

  it('refuses a return value over the limit', async () => {
    const outcome = await runtime().run(request('return "x".repeat(5000)'))
    expect(outcome).toMatchObject({ ok: false, code: 'LIMIT', message: 'the return value is at least 5002 bytes of JSON, over the limit of 1000' })
    const multibyte = await runtime().run(request('return "é".repeat(600)'))
    expect(multibyte).toMatchObject({ ok: false, code: 'LIMIT', message: 'the return value is 1202 bytes of JSON, over the limit of 1000' })
  })

  it('refuses a program over the limit before running it', async () => {
    const outcome = await runtime().run(request(`return ${JSON.stringify('é'.repeat(600))}.length`))
    expect(outcome).toMatchObject({ ok: false, code: 'LIMIT', message: 'the program is 1216 bytes, over the limit of 1000' })
  })

  it('applies per-run limits over the runtime ones', async () => {
    const outcome = await runtime().run(request('return "x".repeat(5000)', { limits: { maxValueBytes: 10_000 } }))
    expect(outcome).toMatchObject({ ok: true })
  })
})

describe('limit configuration', () => {
  it('has the documented defaults', () => {
    expect(defaultCodeLimits).toEqual({
      timeoutMs: 30_000,
      memoryBytes: 64 * 1024 * 1024,
      maxSubCalls: 1000,
      maxParallelSubCalls: 8,
      maxValueBytes: 1024 * 1024,
      maxLogBytes: 64 * 1024,
    })
    expect(Object.isFrozen(defaultCodeLimits)).toBe(true)
  })

  it('rejects unknown names and values that are not positive integers, quoting them', () => {
    expect(() => resolveLimits(defaultCodeLimits, { timeoutMs: 0 })).toThrow('code limit timeoutMs must be a positive integer, got 0')
    expect(() => resolveLimits(defaultCodeLimits, { maxSubCalls: 1.5 })).toThrow(RangeError)
    expect(() => resolveLimits(defaultCodeLimits, { memoryBytes: Number.NaN })).toThrow(RangeError)
    expect(() => resolveLimits(defaultCodeLimits, { timeoutMs: 2 ** 31 })).toThrow('code limit timeoutMs must be at most 2147483647')
    expect(() => resolveLimits(defaultCodeLimits, JSON.parse('{"__proto__": 1}'))).toThrow('unknown code limit "__proto__"')
    expect(resolveLimits(defaultCodeLimits, { timeoutMs: 5, maxLogBytes: undefined })).toMatchObject({ timeoutMs: 5, maxLogBytes: 65536 })
  })

  it('rejects bad options and malformed requests as programming errors', async () => {
    expect(() => new CodeRuntime({ workers: 0 })).toThrow(RangeError)
    expect(() => new CodeRuntime({ limits: { timeoutMs: -1 } })).toThrow(RangeError)
    expect(() => runtime().run({ code: 1 as unknown as string, tools: [], call: echo })).toThrow(TypeError)
    expect(() => runtime().run({ code: '', tools: [1 as unknown as string], call: echo })).toThrow(TypeError)
    expect(() => runtime().run({ code: '', tools: [], call: undefined as unknown as typeof echo })).toThrow(TypeError)
    expect(() => runtime().run(request('', { limits: { maxSubCalls: 0 } }))).toThrow(RangeError)
  })
})
