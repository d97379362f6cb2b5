import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { generateSdk } from '@dsh/tools'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

async function kernel(mode: 'native' | 'code' | 'both') {
  k = await createTestKernel({ tools: { mode } })
  k.ctx.plugin({
    name: 'math',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register({
        name: 'add',
        description: 'Add two numbers.',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        execute: (args) => ({ value: args.a + args.b, content: `sum ${args.a + args.b}` }),
        concurrency: 'parallel',
        prompt: 'add adds',
      })
      ctx.tools.register(testTool('shout', (args: any) => String(args.text).toUpperCase(), { parameters: { type: 'object', properties: { text: { type: 'string' } } } }))
      ctx.tools.register(testTool('fail', () => { throw new Error('nope') }))
    },
  })
  return k
}

const run = (code: string, extra = {}) => k!.call('run_code', { code }, extra)

describe('code mode', () => {
  it('advertises run_code only under code, and all + run_code under both', async () => {
    await kernel('code')
    expect(k!.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['run_code'])
    expect(k!.ctx.tools.schemas().map((s) => s.name)).toEqual(['add', 'shout', 'fail'])
    k!.ctx.tools.setMode('both')
    expect(k!.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['add', 'shout', 'fail', 'run_code'])
    k!.ctx.tools.setMode('native')
    expect(k!.ctx.tools.wireSchemas().map((s) => s.name)).toEqual(['add', 'shout', 'fail'])
    expect((await run('return 1')).error?.code).toBe('UNKNOWN_TOOL')
  })

  it('runs a program calling several tools, with values, text and console.log', async () => {
    await kernel('code')
    const result = await run(`
      const s: number = await tools.add({ a: 1, b: 2 })
      const t = await tools.shout({ text: 'hi' })
      console.log('done', s)
      return { s, t }
    `)
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ s: 3, t: 'HI' })
    expect(result.content).toEqual([{ type: 'text', text: '{"s":3,"t":"HI"}' }, { type: 'text', text: expect.stringContaining('done 3') }])
    const events = k!.session.events()
    const dispatch = events.filter((e) => (e.type as string) === 'tool/code-dispatch').map((e) => (e.data as any).callId)
    expect(dispatch).toEqual([`${result.callId}:code:1`, `${result.callId}:code:2`])
    const nestedCall = events.find((e) => e.type === 'tool/call' && (e.data as any).callId === `${result.callId}:code:1`)
    expect(nestedCall?.data).toMatchObject({ name: 'add', parent: result.callId })
    // each sub-call's four events in order, all before the parent's result
    const kinds = ['tool/call', 'tool/result', 'tool/code-dispatch-start', 'tool/code-dispatch']
    const id = result.callId
    const order = events
      .filter((e) => kinds.includes(e.type as string) && String((e.data as any).callId).startsWith(id))
      .map((e) => `${e.type as string} ${(e.data as any).callId}`)
    const sub = (n: number) => [`tool/code-dispatch-start ${id}:code:${n}`, `tool/call ${id}:code:${n}`, `tool/result ${id}:code:${n}`, `tool/code-dispatch ${id}:code:${n}`]
    expect(order).toEqual([`tool/call ${id}`, ...sub(1), ...sub(2), `tool/result ${id}`])
  })

  it('fails closed when the session log fails in the middle of a program: no later body runs, run_code is an error', async () => {
    await kernel('code')
    let counted = 0
    k!.ctx.plugin({
      name: 'log-breaker',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(testTool('closeLog', (_args: any, exec: any) => { exec.session.close(); return 'closed' }))
        ctx.tools.register(testTool('count', () => String(++counted)))
      },
    })
    const result = await run(`
      const seen = []
      try { await tools.closeLog({}) } catch (e) { seen.push(e.code) }
      try { await tools.count({}) } catch (e) { seen.push(e.code) }
      return seen
    `)
    // the closing sub-call's own result and dispatch lines cannot be written; nothing after it runs
    expect(counted).toBe(0)
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(result.error?.message).toMatch(/ran, but its result could not be written to the session log/)
  })

  it('rejects a failed sub-call with an Error carrying the code', async () => {
    await kernel('code')
    const result = await run(`
      try { await tools.fail({}) } catch (e) { return { code: e.code, isError: e instanceof Error } }
    `)
    expect(result.value).toEqual({ code: 'TOOL_FAILED', isError: true })
  })

  it('reports syntax errors with the line, as an error result', async () => {
    await kernel('code')
    const result = await run('const a = 1\nconst b = = 2\nreturn a')
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(result.error?.message).toMatch(/SyntaxError \(line 2\)/)
  })

  it('keeps the SDK byte-identical for an unchanged tool set, whatever the registration order', async () => {
    await kernel('code')
    const schemas = k!.ctx.tools.schemas()
    const text = generateSdk(schemas)
    expect(generateSdk([...schemas].reverse())).toBe(text)
    expect(text).toContain('/** Add two numbers. */')
    expect(text).toMatch(/add\(args: \{\n\s+a: number\n\s+b: number\n\s+\}\): Promise<unknown>/)
    const sections = await k!.ctx.systemPrompt.assembleSections()
    const sdk = sections.find((s) => s.id === 'tools:sdk')!
    expect(sdk.text).toContain(text)
    expect((await k!.ctx.systemPrompt.assembleSections()).find((s) => s.id === 'tools:sdk')!.text).toBe(sdk.text)
  })

  it('regenerates the SDK when the tool set changes', async () => {
    await kernel('code')
    const before = (await k!.ctx.systemPrompt.assembleSections()).find((s) => s.id === 'tools:sdk')!.text
    const fork = k!.ctx.plugin({ name: 'more', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(testTool('extra')) } })
    const after = (await k!.ctx.systemPrompt.assembleSections()).find((s) => s.id === 'tools:sdk')!.text
    expect(after).not.toBe(before)
    expect(after).toContain('extra(args')
    fork.dispose()
    expect((await k!.ctx.systemPrompt.assembleSections()).find((s) => s.id === 'tools:sdk')!.text).toBe(before)
  })

  it('drops tool:* guidance under code but keeps tools:sdk; both keeps them', async () => {
    await kernel('code')
    let ids = (await k!.ctx.systemPrompt.assembleSections()).map((s) => s.id)
    expect(ids).toContain('tools:sdk')
    expect(ids.filter((id) => id.startsWith('tool:'))).toEqual([])
    k!.ctx.tools.setMode('both')
    ids = (await k!.ctx.systemPrompt.assembleSections()).map((s) => s.id)
    expect(ids).toContain('tool:add')
    expect(ids).toContain('tools:sdk')
  })

  it('serves other calls while a program loops, and the caller\'s abort stops it within 100 ms', async () => {
    await kernel('both')
    const controller = new AbortController()
    // the program's sub-call is the sign it runs: once its result is out, the program loops
    const looping = new Promise<void>((resolve) => k!.ctx.on('tools/result', (exec) => {
      if (exec.name === 'shout') resolve()
    }))
    const program = run('await tools.shout({ text: "go" }); while (true) {}', { signal: controller.signal })
    await looping
    const other = await k!.call('add', { a: 2, b: 2 })
    expect(other.value).toBe(4)
    const start = performance.now()
    controller.abort()
    const result = await program
    const elapsed = performance.now() - start
    expect(result.error?.code).toBe('ABORTED')
    expect(elapsed).toBeLessThan(100)
  })

  it('ends a program past its deadline as TIMEOUT', async () => {
    k = await createTestKernel({ tools: { mode: 'code', code: { timeoutMs: 200 } } })
    const result = await run('while (true) {}')
    expect(result.error?.message).toMatch(/deadline of 200 ms/)
    expect(result.error?.code).toBe('TIMEOUT')
  })
})
