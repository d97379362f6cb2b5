import { afterEach, describe, expect, it } from 'vitest'
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AlwaysOffSampler, InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node'
import type { Context } from 'cordis'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { cleanup, otelTestTools, recordSpans, tracked, type Recorder } from './helpers.js'

let k: TestKernel | undefined
let rec: Recorder | undefined
afterEach(cleanup)

async function codeKernel(config = {}) {
  rec = recordSpans()
  k = tracked(await createTestKernel({ tools: { mode: 'code' }, plugins: { otel: config } }))
  k.ctx.plugin({ name: 'otel-test-tools', inject: ['tools'], apply: (ctx: Context) => otelTestTools(ctx) })
  return k
}

const PROGRAM = `
  const a = await tools.echo({ text: 'one' })
  const [b, c] = await Promise.all([tools.echo({ text: 'two' }), tools.echo({ text: 'three' })])
  let denied = ''
  try { await tools.secret({}) } catch (error) { denied = error.code }
  return { a, b, c, denied }
`

describe('otel: the span tree of a run_code', () => {
  it('gives run_code one span and each of its four sub-calls a child span of it, attribute by attribute', async () => {
    await codeKernel()
    const result = await k!.call('run_code', { code: PROGRAM })
    expect(result.isError).toBe(false)
    expect(result.value).toEqual({ a: 'one', b: 'two', c: 'three', denied: 'DENIED' })
    const id = result.callId

    const spans = rec!.spans()
    expect(spans).toHaveLength(5)
    const root = rec!.span(id)
    expect(root.name).toBe('execute_tool run_code')
    expect(root.kind).toBe(SpanKind.INTERNAL)
    expect(root.parentSpanContext).toBeUndefined()
    expect(root.status.code).toBe(SpanStatusCode.UNSET)
    expect(root.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'run_code',
      'gen_ai.tool.call.id': id,
      'dsh.session.id': 'test',
      'dsh.decision': 'allow',
      'dsh.decision.by': 'pre-execute',
    })
    expect(root.instrumentationScope.name).toBe('@dsh/otel')

    for (const n of [1, 2, 3]) {
      const child = rec!.span(`${id}:code:${n}`)
      expect(child.name).toBe('execute_tool echo')
      expect(child.kind).toBe(SpanKind.INTERNAL)
      expect(child.spanContext().traceId).toBe(root.spanContext().traceId)
      expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
      expect(child.status.code).toBe(SpanStatusCode.UNSET)
      expect(child.attributes).toEqual({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'gen_ai.tool.call.id': `${id}:code:${n}`,
        'dsh.session.id': 'test',
        'dsh.call.parent': id,
        'dsh.decision': 'allow',
        'dsh.decision.by': 'pre-execute',
      })
      // a child lies within its parent
      expect(hr(child.startTime)).toBeGreaterThanOrEqual(hr(root.startTime))
      expect(hr(child.endTime)).toBeLessThanOrEqual(hr(root.endTime))
    }

    const denied = rec!.span(`${id}:code:4`)
    expect(denied.name).toBe('execute_tool secret')
    expect(denied.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    expect(denied.status).toEqual({ code: SpanStatusCode.ERROR, message: 'DENIED' })
    expect(denied.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'secret',
      'gen_ai.tool.call.id': `${id}:code:4`,
      'dsh.session.id': 'test',
      'dsh.call.parent': id,
      'dsh.decision': 'deny',
      'dsh.decision.by': 'pre-execute',
      'dsh.decision.plugin': 'otel-test-tools',
      'error.type': 'DENIED',
    })
    expect(denied.events).toEqual([])
    // the root ends last: the exporter gets children first
    expect(spans.at(-1)).toBe(root)
  })

  it('parents sub-calls through the call token even when two programs run at once', async () => {
    await codeKernel()
    const [r1, r2] = await Promise.all([
      k!.call('run_code', { code: `return [await tools.echo({ text: 'a' }), await tools.echo({ text: 'b' })]` }),
      k!.call('run_code', { code: `return [await tools.echo({ text: 'c' }), await tools.echo({ text: 'd' })]` }),
    ])
    for (const r of [r1, r2]) {
      const root = rec!.span(r.callId)
      for (const n of [1, 2]) expect(rec!.span(`${r.callId}:code:${n}`).parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    }
    expect(rec!.span(r1.callId).spanContext().traceId).not.toBe(rec!.span(r2.callId).spanContext().traceId)
  })

  it('marks a failed program run_code ERROR with its code, and a sub-call whose body threw TOOL_FAILED', async () => {
    await codeKernel()
    const result = await k!.call('run_code', { code: 'await tools.boom({})' })
    expect(result.error?.code).toBe('TOOL_FAILED')
    const root = rec!.span(result.callId)
    expect(root.attributes['error.type']).toBe('TOOL_FAILED')
    expect(root.status.code).toBe(SpanStatusCode.ERROR)
    const child = rec!.span(`${result.callId}:code:1`)
    expect(child.attributes).toMatchObject({ 'error.type': 'TOOL_FAILED', 'dsh.decision': 'allow' })
  })

  it('gives a call refused before the gates a span of its own: unknown tool, invalid arguments', async () => {
    await codeKernel()
    const unknown = await k!.call('echo', { text: 'direct' })
    expect(unknown.error?.code).toBe('UNKNOWN_TOOL')
    const span = rec!.span(unknown.callId)
    expect(span.name).toBe('execute_tool echo')
    expect(span.attributes['error.type']).toBe('UNKNOWN_TOOL')
    // no gate decided anything
    expect(span.attributes['dsh.decision']).toBeUndefined()
    const invalid = await k!.call('run_code', { code: 42 })
    expect(rec!.span(invalid.callId).attributes['error.type']).toBe('INVALID_ARGS')
  })
})

describe('otel: sampling and the host\'s context', () => {
  it('a sampled-out run_code takes its sub-calls with it, errors included: no span at all', async () => {
    const exporter = new InMemorySpanExporter()
    const provider = new NodeTracerProvider({ sampler: new AlwaysOffSampler(), spanProcessors: [new SimpleSpanProcessor(exporter)] })
    trace.setGlobalTracerProvider(provider)
    try {
      k = tracked(await createTestKernel({ tools: { mode: 'code' }, plugins: { otel: {} } }))
      k.ctx.plugin({ name: 'otel-test-tools', inject: ['tools'], apply: (ctx: Context) => otelTestTools(ctx) })
      const result = await k.call('run_code', { code: `await tools.echo({ text: 'a' }); try { await tools.secret({}) } catch {} return 1` })
      expect(result.isError).toBe(false)
      expect((await k.call('run_code', { code: 'await tools.boom({})' })).error?.code).toBe('TOOL_FAILED')
      expect(exporter.getFinishedSpans()).toEqual([])
    } finally {
      await provider.shutdown()
      trace.disable()
    }
  })

  it('makes a top-level call a child of the host\'s active span, and its sub-calls children of run_code still', async () => {
    try {
      await codeKernel()
      // as a host does: the provider with its AsyncLocalStorage context manager
      rec!.provider.register()
      const host = trace.getTracer('host-agent').startSpan('agent turn')
      const result = await context.with(trace.setSpan(context.active(), host), () => k!.call('run_code', { code: `return await tools.echo({ text: 'a' })` }))
      host.end()
      const root = rec!.span(result.callId)
      expect(root.parentSpanContext?.spanId).toBe(host.spanContext().spanId)
      expect(root.spanContext().traceId).toBe(host.spanContext().traceId)
      expect(rec!.span(`${result.callId}:code:1`).parentSpanContext?.spanId).toBe(root.spanContext().spanId)
    } finally {
      context.disable()
      propagation.disable()
    }
  })
})

function hr(time: [number, number]): number {
  return time[0] * 1e9 + time[1]
}
