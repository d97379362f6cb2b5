/**
 * The spans leave the process: the SDK's real OTLP/HTTP exporter behind a
 * batch span processor delivers them to a receiver on the loopback address.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import type { Context } from 'cordis'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { otelTestTools } from './helpers.js'
import { startReceiver, type Receiver } from './otlp-receiver.js'

let k: TestKernel | undefined
let receiver: Receiver | undefined
let provider: NodeTracerProvider | undefined
afterEach(async () => {
  await k?.cleanup()
  await provider?.shutdown()
  trace.disable()
  await receiver?.close()
  k = receiver = provider = undefined
})

describe('otel: OTLP over HTTP', () => {
  it('delivers the span tree of a run_code, attributes and status included, to a local receiver', async () => {
    receiver = await startReceiver()
    provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'otel-spec' }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` }))],
    })
    trace.setGlobalTracerProvider(provider)
    k = await createTestKernel({ tools: { mode: 'code' }, plugins: { otel: {} } })
    k.ctx.plugin({ name: 'otel-test-tools', inject: ['tools'], apply: (ctx: Context) => otelTestTools(ctx) })
    const result = await k.call('run_code', { code: `await tools.echo({ text: 'a' }); try { await tools.secret({}) } catch {} return 1` }, { callId: 'otlp-1' })
    expect(result.isError).toBe(false)
    await provider.forceFlush()

    expect(receiver.contentTypes[0]).toMatch(/^application\/json/)
    const byId = (id: string) => receiver!.spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id)!
    const root = byId('otlp-1')
    expect(root).toMatchObject({ name: 'execute_tool run_code', kind: 1, scope: '@dsh/otel', resource: { 'service.name': 'otel-spec' } })
    expect(root.parentSpanId).toBeUndefined()
    const echo = byId('otlp-1:code:1')
    expect(echo).toMatchObject({ name: 'execute_tool echo', traceId: root.traceId, parentSpanId: root.spanId })
    expect(echo.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo', 'dsh.session.id': 'test', 'dsh.decision': 'allow' })
    const secret = byId('otlp-1:code:2')
    expect(secret).toMatchObject({ parentSpanId: root.spanId, status: { code: 2, message: 'DENIED' } })
    expect(secret.attributes).toMatchObject({ 'error.type': 'DENIED', 'dsh.decision': 'deny', 'dsh.decision.by': 'pre-execute' })
    expect(receiver.spans).toHaveLength(3)
  })
})
