/**
 * Code mode under attack: the collapse at the executor, nested calls through
 * the full pipeline, and programs trying to reach past the SDK.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

interface Seen { listener: string[]; guard: string[]; approval: string[]; body: string[] }

async function kernel(options: Parameters<typeof createTestKernel>[0] = {}) {
  k = await createTestKernel({ tools: { mode: 'code' }, ...options })
  const seen: Seen = { listener: [], guard: [], approval: [], body: [] }
  k.ctx.plugin({
    name: 'observed',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(testTool('write', (args: any) => { seen.body.push(`write:${JSON.stringify(args)}`); return 'written' }))
      ctx.tools.register(testTool('evil', () => ({ value: JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') })))
      ctx.on('tools/pre-execute', (exec, next) => {
        seen.listener.push(`${exec.name}${exec.nested ? ' (nested)' : ''}`)
        return exec.name === 'write' ? { kind: 'ask', reason: 'writes need a human' } : next()
      })
      ctx.tools.guard((exec) => { seen.guard.push(exec.name); return (exec.arguments as any).path === '/etc/passwd' ? 'not that file' : undefined })
      ctx.on('approval/request' as any, (request: any) => {
        seen.approval.push(request.exec.name)
        return { kind: 'approved', grant: 'once' }
      })
    },
  })
  return { k, seen }
}

const run = (code: string) => k!.call('run_code', { code })

describe('the collapse at the executor', () => {
  it('a native name called directly never reaches a listener, guard, approval or body', async () => {
    const { seen } = await kernel()
    for (const name of ['write', 'evil', '__proto__', 'constructor']) {
      const result = await k!.call(name, { path: 'x' })
      expect(result.error?.code).toBe('UNKNOWN_TOOL')
    }
    expect(seen).toEqual({ listener: [], guard: [], approval: [], body: [] })
    // audited all the same
    expect(k!.session.events().filter((e) => e.type === 'tool/call')).toHaveLength(4)
  })

  it('a direct call with a forged parent token is denied before any gate', async () => {
    const { seen } = await kernel()
    const result = await k!.call('write', { path: 'x' }, { parent: { callId: 'run-1' } })
    expect(result.error?.code).toBe('DENIED')
    expect(seen).toEqual({ listener: [], guard: [], approval: [], body: [] })
  })

  it('the same call through run_code passes every gate, approval included', async () => {
    const { seen } = await kernel()
    const result = await run(`return await tools.write({ path: 'notes.txt' })`)
    expect(result.value).toBe('written')
    expect(seen.listener).toEqual(['run_code', 'write (nested)'])
    expect(seen.guard).toEqual(['run_code', 'write'])
    expect(seen.approval).toEqual(['write'])
    expect(seen.body).toEqual(['write:{"path":"notes.txt"}'])
    const asked = k!.session.events().find((e) => e.type === 'approval/asked')
    expect((asked!.data as any).callId).toMatch(/:code:1$/)
  })

  it('nested calls are denied exactly as direct ones: a guard, and the never policy', async () => {
    const { seen } = await kernel()
    const guarded = await run(`try { await tools.write({ path: '/etc/passwd' }) } catch (e) { return e.code + ': ' + e.message }`)
    expect(guarded.value).toBe('DENIED: not that file')
    expect(seen.body).toEqual([])
    await k!.cleanup()
    const never = await kernel({ approval: { policy: 'never' } })
    const denied = await run(`try { await tools.write({ path: 'a' }) } catch (e) { return e.code }`)
    expect(denied.value).toBe('DENIED')
    expect(never.seen.approval).toEqual([])
    expect(never.seen.body).toEqual([])
  })
})

describe('sub-calls a program does not wait for', () => {
  it('run to their end before run_code reports, and are logged before it', async () => {
    k = await createTestKernel({ tools: { mode: 'code' } })
    let slowDone = false
    k.ctx.plugin({ name: 't', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('slow', async () => { await new Promise((r) => setTimeout(r, 200)); slowDone = true; return 'slow' }, { concurrency: 'parallel' }))
      ctx.tools.register(testTool('fast', () => 'fast', { concurrency: 'parallel' }))
    } })
    const result = await run(`tools.slow({}).catch(() => {}); await tools.fast({}); return 1`)
    expect(result.value).toBe(1)
    expect(slowDone).toBe(true)
    const results = k.session.events().filter((e) => e.type === 'tool/result').map((e) => (e.data as any).name)
    expect(results.indexOf('run_code')).toBe(results.length - 1)
  })
})

describe('programs reaching past the SDK', () => {
  it('cannot call run_code from inside, or reach hidden members of tools', async () => {
    await kernel()
    const result = await run(`
      const out = []
      for (const name of ['run_code', '__proto__', 'constructor', 'hasOwnProperty']) {
        try { const r = await (tools as any)[name]({ code: 'return 1' }); out.push(name + ':ran:' + JSON.stringify(r)) }
        catch (e) { out.push(name + ':' + (e.code ?? e.name)) }
      }
      return out
    `)
    expect(result.isError).toBe(false)
    for (const line of result.value as string[]) expect(line).not.toMatch(/:ran:/)
    const nestedRunCode = k!.session.events().filter((e) => e.type === 'tool/call' && (e.data as any).name === 'run_code')
    expect(nestedRunCode).toHaveLength(1)
  })

  it('has no process, require, fetch or dynamic import', async () => {
    await kernel()
    const result = await run(`
      const probes = {
        process: typeof process, require: typeof require, fetch: typeof fetch,
        fn: (() => { try { return typeof (Function('return this')() as any).process } catch (e) { return 'threw' } })(),
      }
      let imported = 'no'
      try { await import('node:fs'); imported = 'yes' } catch { imported = 'refused' }
      return { ...probes, imported }
    `)
    expect(result.value).toEqual({ process: 'undefined', require: 'undefined', fetch: 'undefined', fn: 'undefined', imported: 'refused' })
  })

  it('cannot pollute prototypes through an SDK result, inside or in the host', async () => {
    await kernel()
    const result = await run(`
      const v = await tools.evil({})
      return { inside: ({} as any).polluted ?? null, own: Object.keys(v) }
    `)
    expect(result.value).toEqual({ inside: null, own: ['__proto__', 'constructor'] })
    expect(({} as any).polluted).toBeUndefined()
  })

  it('is bounded: sub-call count, unbounded allocation and a promise flood end as errors, and the kernel keeps working', async () => {
    k = await createTestKernel({ tools: { mode: 'code', code: { maxSubCalls: 3, timeoutMs: 3000, memoryBytes: 8 * 1024 * 1024 } } })
    k.ctx.plugin({ name: 't', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('noop')) } })
    const many = await run(`for (let i = 0; i < 10; i++) { try { await tools.noop({}) } catch (e) { return { at: i, code: e.code } } } return 'all ran'`)
    expect(many.value).toEqual({ at: 3, code: 'LIMIT' })
    const alloc = await run(`const a = []; while (true) a.push('x'.repeat(1e5))`)
    expect(alloc.isError).toBe(true)
    const flood = await run(`let n = 0; while (true) { Promise.resolve().then(() => n++) }`)
    expect(flood.isError).toBe(true)
    const deep = await run(`const f = (n: number): number => f(n + 1) + 1; return f(0)`)
    expect(deep.isError).toBe(true)
    expect((await run('return 2 + 2')).value).toBe(4)
  })
})
