/**
 * The OpenTelemetry SDK as a host registers it, for the otel plugin's tests:
 * a real NodeTracerProvider with the SDK's in-memory exporter behind a simple
 * span processor, registered globally for one test.
 */
import { trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-node'
import type { Context } from 'cordis'
import { testTool, type TestKernel } from 'dsh/testing'

/** what a test set up and must take down: kernels, providers */
const live: Array<() => Promise<void>> = []

/** Take down, newest first, every kernel `tracked` and every recorder a test started (for `afterEach`). */
export async function cleanup(): Promise<void> {
  for (const down of live.splice(0).reverse()) await down()
}

/** A kernel `cleanup` disposes (and whose directory it removes) after the test. */
export function tracked(k: TestKernel): TestKernel {
  live.push(() => k.cleanup())
  return k
}

export interface Recorder {
  provider: NodeTracerProvider
  exporter: InMemorySpanExporter
  spans(): ReadableSpan[]
  /** the span of a call, by its call id */
  span(callId: string): ReadableSpan
  shutdown(): Promise<void>
}

/** Register a provider exporting to memory (plus any extra processors); `shutdown` (or `cleanup`) unregisters it. */
export function recordSpans(extra: SpanProcessor[] = []): Recorder {
  const exporter = new InMemorySpanExporter()
  const provider = new NodeTracerProvider({ spanProcessors: [...extra, new SimpleSpanProcessor(exporter)] })
  trace.setGlobalTracerProvider(provider)
  const spans = () => exporter.getFinishedSpans()
  const shutdown = async () => {
    await provider.shutdown()
    trace.disable()
  }
  live.push(shutdown)
  return {
    provider,
    exporter,
    spans,
    span(callId) {
      const found = spans().filter((s) => s.attributes['gen_ai.tool.call.id'] === callId)
      if (found.length !== 1) throw new Error(`expected one span for ${callId}, found ${found.length}`)
      return found[0]
    },
    shutdown,
  }
}

/** Tools for the tests: `echo` (parallel, returns its text as value), `secret` (denied by the listener below). */
export function otelTestTools(ctx: Context): void {
  ctx.tools.register({
    ...testTool('echo', (args: any) => ({ value: args.text, content: `echo ${args.text}` })),
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    concurrency: 'parallel',
  })
  ctx.tools.register(testTool('secret', () => 'the secret'))
  ctx.tools.register(testTool('boom', () => { throw new Error('the body failed') }))
  ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'secret' ? { kind: 'deny', reason: 'secrets stay secret' } : next()))
}
