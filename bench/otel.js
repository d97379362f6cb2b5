// otel.overhead_us: what the otel plugin adds per call, on the pipeline figure's kernel (100 tools,
// the policy plugins, 3 pre-execute listeners, 2 guards, session log on). First with no tracer
// provider registered, then with the SDK's NodeTracerProvider and a batch span processor (its
// exporter takes each batch and drops it: the network is not what is measured). Each time the
// traced kernel runs in turns with the same kernel without the plugin.
import { trace } from '@opentelemetry/api'
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import * as otel from '@dsh/otel'
import { median } from './lib.js'
import { calls, checked, inTurns, N, SAMPLES, setup } from './pipeline.js'

/** per sample, the traced kernel's ms per call less the plain one's, in µs */
const added = (samples) => median(samples.traced.map((ms, s) => (ms - samples.plain[s]) * 1000))

export async function run() {
  const args = { i: 1 }
  const plain = await setup(100)
  const traced = await setup(100)
  let provider
  try {
    traced.kernel.ctx.plugin(otel, otel.Config({}))
    const runs = { plain: calls(plain, 100, args), traced: calls(traced, 100, args) }
    await checked(runs.plain)
    await checked(runs.traced)

    const bare = await inTurns(runs)
    const noSdk = added(bare)

    let exported = 0
    const exporter = { export(spans, done) { exported += spans.length; done({ code: 0 }) }, shutdown: async () => {}, forceFlush: async () => {} }
    provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] })
    trace.setGlobalTracerProvider(provider)
    const sdk = await inTurns(runs)
    await provider.forceFlush()
    const withSdk = added(sdk)
    const note = `${SAMPLES} samples of ${N} calls, in turns with the same kernel without the plugin (median of per-sample differences)`
    return [
      { name: 'otel.overhead_us', value: noSdk, unit: 'us', target: '<= 1', baseline: { name: 'kernel without otel', value: median(bare.plain) * 1000, unit: 'us' }, note: `no tracer provider registered; ${note}` },
      { name: 'otel.overhead_sdk_us', value: withSdk, unit: 'us', target: '<= 15', baseline: { name: 'kernel without otel', value: median(sdk.plain) * 1000, unit: 'us' }, note: `NodeTracerProvider + BatchSpanProcessor (${exported} spans exported); ${note}` },
    ]
  } finally {
    await provider?.shutdown()
    trace.disable()
    await plain.remove()
    await traced.remove()
  }
}
