/**
 * `ToolCall.execute(name, args, options?)`: a tool's body calls another tool
 * through the whole pipeline as a sub-call of its own call — in native mode
 * and under code mode (where a call without `parent` collapses to
 * UNKNOWN_TOOL), audited with its parent, held to every gate, stopped by the
 * caller's abort, and traced as a child span.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { ToolOutput, ToolResult } from '@dsh/tools'
import { answerApprovals, createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { cleanup as otelCleanup, recordSpans, tracked, type Recorder } from '../otel/helpers.js'
import { eventsOf } from './helpers.js'

let k: TestKernel | undefined
let rec: Recorder | undefined
afterEach(async () => {
  await otelCleanup()
  await k?.cleanup()
  k = undefined
  rec = undefined
})

/** `word_count` reads `text_of` through the pipeline and counts its words; `raw_count` tries the old way, `ctx.tools.execute` without a parent. */
function wordTools(ctx: Context) {
  ctx.tools.register(testTool('text_of', (args) => `the words of ${String(args.file)}`))
  ctx.tools.register(testTool('word_count', async (args, call): Promise<ToolOutput> => {
    const read = await call.execute('text_of', { file: args.file })
    if (read.isError) return { value: { error: read.error!.code, source: read.error!.source?.kind ?? null } }
    return { value: { words: String((read.content[0] as { text: string }).text).split(' ').length, subCall: read.callId } }
  }))
  ctx.tools.register(testTool('raw_count', async (args, call) => {
    const read = await ctx.tools.execute({ callId: `${call.callId}:raw`, name: 'text_of', arguments: {}, session: call.session })
    return { value: { code: read.error?.code ?? null } }
  }))
}

async function kernel(mode: 'native' | 'code', plugins: Record<string, object> = {}) {
  k = await createTestKernel({ tools: { mode }, plugins })
  k.ctx.plugin({ name: 'words', inject: ['tools'], apply: wordTools })
  return k
}

const viaMode = (k: TestKernel, mode: 'native' | 'code', name: string, args: object): Promise<ToolResult> =>
  mode === 'native' ? k.call(name, args) : k.call('run_code', { code: `return await tools.${name}(${JSON.stringify(args)})` })

describe('ToolCall.execute', () => {
  it.each(['native', 'code'] as const)('works under %s mode, audited as a sub-call with its parent', async (mode) => {
    const k = await kernel(mode)
    const result = await viaMode(k, mode, 'word_count', { file: 'a.txt' })
    expect(result.isError, JSON.stringify(result)).toBe(false)
    const outer = mode === 'native' ? result.callId : `${result.callId}:code:1`
    expect(result.value).toEqual({ words: 4, subCall: `${outer}:call:1` })
    const sub = eventsOf(k, `${outer}:call:1`)
    expect(sub.map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(sub[0].data).toMatchObject({ name: 'text_of', arguments: { file: 'a.txt' }, parent: outer })
  })

  it('under code mode the old way, ctx.tools.execute without a parent, is UNKNOWN_TOOL; the new one is not', async () => {
    const k = await kernel('code')
    const raw = await viaMode(k, 'code', 'raw_count', {})
    expect(raw.value).toEqual({ code: 'UNKNOWN_TOOL' })
  })

  it('the sub-call passes every gate: a guard on it refuses it (attributed), an ask needs an approval', async () => {
    const k = await kernel('native')
    const fork = k.ctx.plugin({ name: 'no-reads', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.guard(function noTextOf(exec) { return exec.name === 'text_of' ? 'not this file' : undefined })
    } })
    expect((await k.call('word_count', { file: 'a' })).value).toEqual({ error: 'DENIED', source: 'guard' })
    fork.dispose()
    k.ctx.plugin({ name: 'ask-reads', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.guard((exec) => (exec.name === 'text_of' ? { ask: 'reads need a yes' } : undefined))
    } })
    expect((await k.call('word_count', { file: 'a' })).value).toEqual({ error: 'APPROVAL_UNAVAILABLE', source: 'approval' })
    answerApprovals(k, { kind: 'approved', grant: 'once' })
    expect((await k.call('word_count', { file: 'a' })).value).toMatchObject({ words: 4 })
  })

  it('the caller\'s abort reaches the sub-call\'s body; a further signal of the body\'s own stops it too', async () => {
    k = await createTestKernel()
    const heard: string[] = []
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    k.ctx.plugin({ name: 'waits', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('wait', (args, call) => new Promise((resolve) => {
        started()
        call.signal.addEventListener('abort', () => { heard.push(String(args.who)); resolve('stopped') })
      })))
      ctx.tools.register(testTool('outer', async (args, call) => {
        const own = new AbortController()
        if (args.own) setTimeout(() => own.abort(), 10)
        const sub = await call.execute('wait', { who: args.own ? 'own' : 'caller' }, { signal: own.signal })
        return { value: { code: sub.error?.code ?? null } }
      }))
    } })
    const caller = new AbortController()
    const pending = k.call('outer', {}, { signal: caller.signal })
    await running
    caller.abort()
    expect((await pending).error?.code).toBe('ABORTED')
    expect((await k.call('outer', { own: true })).value).toEqual({ code: 'ABORTED' })
    expect(heard).toEqual(['caller', 'own'])
  })

  it('a forged parent is still refused; destructuring execute works', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'p', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('leaf'))
      ctx.tools.register(testTool('outer', async (_args, call) => {
        const { execute } = call
        const ok = await execute('leaf', {})
        const forged = await ctx.tools.execute({ callId: 'f', name: 'leaf', arguments: {}, session: call.session, parent: { callId: call.callId } })
        return { value: { ok: !ok.isError, forged: forged.error?.code ?? null } }
      }))
    } })
    expect((await k.call('outer', {})).value).toEqual({ ok: true, forged: 'DENIED' })
  })

  it('is traced as a child span of the calling call', async () => {
    rec = recordSpans()
    // cleaned up by the otel helpers' cleanup, after the recorder
    const traced = tracked(await createTestKernel({ plugins: { otel: {} } }))
    traced.ctx.plugin({ name: 'words', inject: ['tools'], apply: wordTools })
    const result = await traced.call('word_count', { file: 'b' })
    expect(result.isError).toBe(false)
    const parent = rec.span(result.callId)
    const child = rec.span(`${result.callId}:call:1`)
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId)
    expect(child.attributes).toMatchObject({ 'gen_ai.tool.name': 'text_of', 'dsh.call.parent': result.callId })
  })
})
