/**
 * The OpenTelemetry SDK for `dsh mcp --otel`: a Node tracer provider with the
 * OTLP/HTTP exporter behind a batch span processor, configured from the
 * standard `OTEL_*` variables, registered globally (with the AsyncLocalStorage
 * context manager and the W3C propagators). Imported only with `--otel`: the
 * SDK is not loaded at all otherwise.
 */
import { createRequire } from 'node:module'
import { diag, DiagLogLevel } from '@opentelemetry/api'
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node'
import { readTracingEnv, type TracingEnv } from './env.js'
import { boundedShutdown, exportFailureLine, shortDiagLogger } from './report.js'
import { rateLimitedLog } from '../cli/mcp/rate-limited-log.js'

// required, not imported: the bundle keeps the SDK (a quarter of its bytes) in dist/vendor/otel.cjs,
// read only by a start with --otel (decisions/2026-12-01-cli-bundle.md)
const require = createRequire(import.meta.url)

export interface Tracing {
  /** what was set up, for the log line */
  readonly summary: string
  /**
   * Flush what is batched and stop exporting, for at most `timeoutMs`
   * (default 1000): spans not exported by then are dropped, said in one line.
   */
  shutdown(timeoutMs?: number): Promise<void>
}

export const DEFAULT_FLUSH_TIMEOUT_MS = 1000

const LOG_LEVELS: Record<TracingEnv['logLevel'], DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
}

/**
 * Start tracing from the process's environment (the SDK packages read it too);
 * throws `INVALID_CONFIG` naming a variable it cannot honour.
 */
export function startTracing(write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Tracing {
  const settings = readTracingEnv(process.env)
  if (settings.disabled) return { summary: 'tracing disabled (OTEL_SDK_DISABLED=true)', shutdown: async () => {} }
  const { setGlobalErrorHandler } = require('@opentelemetry/core') as typeof import('@opentelemetry/core')
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')
  const { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node')
  // a collector that is down fails every export: one short line each, at most a few every ten seconds
  const report = rateLimitedLog((line) => write(`dsh mcp: traces: ${line}`), { what: 'trace export messages' })
  // export failures reach the global error handler (the SDK's default prints each as a JSON stack)
  setGlobalErrorHandler((error) => report(exportFailureLine(error)))
  diag.setLogger(shortDiagLogger(report), { logLevel: LOG_LEVELS[settings.logLevel], suppressOverrideMessage: true })
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'dsh' }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name
    .merge(detectResources({ detectors: [envDetector] }))
  const spanProcessors: SpanProcessor[] = settings.exporters.map((name) =>
    // OTEL_BSP_* and OTEL_EXPORTER_OTLP_* are read by the processor and the exporter themselves
    new BatchSpanProcessor(name === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter()))
  const provider = new NodeTracerProvider({ resource, spanProcessors })
  provider.register()
  const exporters = settings.exporters.length ? settings.exporters.join(', ') : 'none'
  return {
    summary: `tracing to ${exporters} as ${String(resource.attributes['service.name'])}`,
    async shutdown(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS) {
      await boundedShutdown(() => provider.shutdown(), timeoutMs, report)
      report.flush()
    },
  }
}
