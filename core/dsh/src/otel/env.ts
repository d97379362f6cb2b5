/**
 * What `dsh mcp --otel` reads from the standard `OTEL_*` variables itself; the
 * SDK packages read the rest (the OTLP endpoint, headers, timeout and
 * compression; the sampler; the batch processor's limits; the resource). A
 * value this cannot honour is an error naming the variable, never a silent
 * fallback to something else.
 */
import { KernelError } from '@dsh/kernel'

export type TraceExporterName = 'otlp' | 'console'

export interface TracingEnv {
  /** `OTEL_SDK_DISABLED=true`: no SDK, no spans */
  disabled: boolean
  /** `OTEL_TRACES_EXPORTER`, default `otlp`; `none` is the empty list */
  exporters: TraceExporterName[]
  /** `OTEL_LOG_LEVEL`, default `warn`: the SDK's own diagnostics, on stderr */
  logLevel: 'none' | 'error' | 'warn' | 'info' | 'debug' | 'verbose' | 'all'
}

const EXPORTERS = new Set(['otlp', 'console', 'none'])
const LEVELS = new Set(['none', 'error', 'warn', 'info', 'debug', 'verbose', 'all'])

function bad(variable: string, value: string, expected: string): KernelError {
  return new KernelError('INVALID_CONFIG', `${variable}=${JSON.stringify(value)}: ${expected}`, { details: { variable } })
}

export function readTracingEnv(env: NodeJS.ProcessEnv): TracingEnv {
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase()
  if (disabled !== '' && disabled !== 'true' && disabled !== 'false') throw bad('OTEL_SDK_DISABLED', disabled, 'expected true or false')

  const names = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((n) => n.trim().toLowerCase()).filter(Boolean)
  for (const name of names) {
    if (!EXPORTERS.has(name)) throw bad('OTEL_TRACES_EXPORTER', env.OTEL_TRACES_EXPORTER!, 'dsh mcp --otel exports with otlp (OTLP over HTTP) or console, or none')
  }
  const exporters = (names.length ? names : ['otlp']).filter((n): n is TraceExporterName => n !== 'none')

  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[variable]?.trim()
    // the collector's HTTP receiver takes JSON and protobuf alike at /v1/traces; gRPC is another port and wire
    if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf') {
      throw bad(variable, protocol, 'dsh mcp --otel sends OTLP over HTTP (http/json); point OTEL_EXPORTER_OTLP_ENDPOINT at the collector\'s HTTP receiver (port 4318)')
    }
  }

  const level = (env.OTEL_LOG_LEVEL ?? 'warn').trim().toLowerCase()
  if (!LEVELS.has(level)) throw bad('OTEL_LOG_LEVEL', level, `expected one of ${[...LEVELS].join(', ')}`)
  return { disabled: disabled === 'true', exporters, logLevel: level as TracingEnv['logLevel'] }
}
