import { describe, expect, it } from 'vitest'
// the OTel environment reader is private to dsh: tested here on purpose
import { readTracingEnv } from '../../core/dsh/src/otel/env.js'

describe('dsh mcp --otel: the OTEL_* variables it reads itself', () => {
  it('defaults to the OTLP exporter, warnings on stderr, the SDK on', () => {
    expect(readTracingEnv({})).toEqual({ disabled: false, exporters: ['otlp'], logLevel: 'warn' })
  })

  it('honours OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER lists and none, OTEL_LOG_LEVEL in any case', () => {
    expect(readTracingEnv({ OTEL_SDK_DISABLED: 'TRUE' }).disabled).toBe(true)
    expect(readTracingEnv({ OTEL_SDK_DISABLED: 'false' }).disabled).toBe(false)
    expect(readTracingEnv({ OTEL_TRACES_EXPORTER: 'otlp, console' }).exporters).toEqual(['otlp', 'console'])
    expect(readTracingEnv({ OTEL_TRACES_EXPORTER: 'none' }).exporters).toEqual([])
    expect(readTracingEnv({ OTEL_LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug')
    expect(readTracingEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).exporters).toEqual(['otlp'])
  })

  it('refuses what it cannot honour with INVALID_CONFIG naming the variable and the value', () => {
    const refused = (env: Record<string, string>) => {
      try {
        readTracingEnv(env)
      } catch (error) {
        return error as Error & { code: string }
      }
      throw new Error('not refused')
    }
    expect(refused({ OTEL_TRACES_EXPORTER: 'otlp,jaeger' })).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringMatching(/^OTEL_TRACES_EXPORTER="otlp,jaeger"/) })
    expect(refused({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }).message).toMatch(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="grpc": .*4318/)
    expect(refused({ OTEL_SDK_DISABLED: 'yes' }).message).toMatch(/^OTEL_SDK_DISABLED="yes"/)
    expect(refused({ OTEL_LOG_LEVEL: 'chatty' }).message).toMatch(/^OTEL_LOG_LEVEL="chatty": expected one of none, error/)
  })
})
