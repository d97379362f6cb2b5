/**
 * The plugin observes only: with or without an SDK, with a span processor or
 * a tracer that throws, every call ends exactly as it does without the plugin
 * — results, denials, approvals and the session log alike.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { trace, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node'
import type { Context } from 'cordis'
import { answerApprovals, createTestKernel, type TestKernel } from 'dsh/testing'
import { otelTestTools, recordSpans, type Recorder } from './helpers.js'

const kernels: TestKernel[] = []
let rec: Recorder | undefined
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.cleanup()
  await rec?.shutdown()
  rec = undefined
  trace.disable()
})

async function kernel(withPlugin: boolean) {
  const k = await createTestKernel({ plugins: withPlugin ? { otel: {} } : {} })
  kernels.push(k)
  k.ctx.plugin({
    name: 'otel-test-tools',
    inject: ['tools'],
    apply(ctx: Context) {
      otelTestTools(ctx)
      ctx.tools.guard((exec) => (exec.name === 'echo' && exec.arguments.text === 'guarded' ? 'the guard refuses' : undefined))
      ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' && String(exec.arguments.text).startsWith('ask') ? { kind: 'ask', reason: 'asking' } : next()))
    },
  })
  answerApprovals(k, (request) => (request.exec.arguments.text === 'ask yes' ? { kind: 'approved', grant: 'once' } : { kind: 'denied', reason: 'no' }))
  return k
}

/** Every kind of outcome, with fixed call ids; the results and the types of the events each call appended. */
async function outcomes(k: TestKernel) {
  const calls: Array<[string, string, unknown]> = [
    ['c-allow', 'echo', { text: 'hi' }],
    ['c-deny', 'secret', {}],
    ['c-guard', 'echo', { text: 'guarded' }],
    ['c-ask-yes', 'echo', { text: 'ask yes' }],
    ['c-ask-no', 'echo', { text: 'ask no' }],
    ['c-fail', 'boom', {}],
    ['c-unknown', 'nothing', {}],
    ['c-invalid', 'echo', { text: 1 }],
  ]
  const seen = []
  for (const [callId, name, args] of calls) {
    const result = await k.execute({ callId, name, arguments: args, session: k.session })
    const types = k.session.events().filter((e) => (e.data as any)?.callId === callId).map((e) => e.type)
    seen.push({ result, types })
  }
  return seen
}

describe('otel: observe only', () => {
  it('changes no outcome and no audit event without an SDK registered', async () => {
    const plain = await outcomes(await kernel(false))
    const traced = await outcomes(await kernel(true))
    expect(traced).toEqual(plain)
    expect(plain.map((o) => o.result.error?.code)).toEqual([undefined, 'DENIED', 'DENIED', undefined, 'DENIED', 'TOOL_FAILED', 'UNKNOWN_TOOL', 'INVALID_ARGS'])
  })

  it('changes nothing with the SDK recording every call', async () => {
    const plain = await outcomes(await kernel(false))
    rec = recordSpans()
    const traced = await outcomes(await kernel(true))
    expect(traced).toEqual(plain)
    expect(rec.spans()).toHaveLength(8)
  })

  it('changes nothing when a span processor throws when a span starts or ends', async () => {
    const plain = await outcomes(await kernel(false))
    const throwing: SpanProcessor = {
      onStart: () => { throw new Error('onStart broke') },
      onEnd: () => { throw new Error('onEnd broke') },
      forceFlush: async () => {},
      shutdown: async () => {},
    }
    rec = recordSpans([throwing])
    const traced = await outcomes(await kernel(true))
    expect(traced).toEqual(plain)
  })

  it('changes nothing when the tracer itself throws, or hands out spans that throw', async () => {
    const plain = await outcomes(await kernel(false))
    const broken = (mode: 'start' | 'span'): TracerProvider => ({
      getTracer: () => ({
        startSpan() {
          if (mode === 'start') throw new Error('startSpan broke')
          const fail = () => { throw new Error('span broke') }
          return { spanContext: () => ({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }), isRecording: () => true, setAttribute: fail, setAttributes: fail, addEvent: fail, addLink: fail, addLinks: fail, setStatus: fail, updateName: fail, end: fail, recordException: fail } as any
        },
        startActiveSpan: () => { throw new Error('not used') },
      }) as unknown as Tracer,
    })
    for (const mode of ['start', 'span'] as const) {
      trace.disable()
      trace.setGlobalTracerProvider(broken(mode))
      expect(await outcomes(await kernel(true))).toEqual(plain)
    }
  })

  it('finds a provider registered after the plugin loaded (the API proxy)', async () => {
    const k = await kernel(true)
    await k.execute({ callId: 'before', name: 'echo', arguments: { text: 'x' }, session: k.session })
    rec = recordSpans()
    await k.execute({ callId: 'after', name: 'echo', arguments: { text: 'x' }, session: k.session })
    expect(rec.spans().map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['after'])
  })

  it('leaves decisions to the pipeline: its listener is first in gate 1 and hands next() back', async () => {
    const k = await kernel(true)
    const hooks = (k.ctx.root as any).lifecycle._hooks['tools/pre-execute'] as Array<{ ctx: Context }>
    expect(hooks[0].ctx.name).toBe('otel')
    rec = recordSpans()
    // a later listener that denies after next() allowed still wins: monotone, and the span says deny
    k.ctx.plugin({ name: 'late-deny', apply: (ctx: Context) => { ctx.on('tools/pre-execute', async (_exec, next) => { await next(); return { kind: 'deny', reason: 'late' } }) } })
    const result = await k.execute({ callId: 'late', name: 'echo', arguments: { text: 'x' }, session: k.session })
    expect(result.error).toMatchObject({ code: 'DENIED', message: 'late' })
    expect(rec.span('late').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'pre-execute' })
  })
})
