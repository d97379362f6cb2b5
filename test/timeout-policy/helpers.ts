import { vi } from 'vitest'
import type { Context } from 'cordis'
import type { ToolCall, ToolDefinition } from '@dsh/tools'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

/** Run `fn` with setTimeout/clearTimeout/Date faked; always restores the real ones. */
export async function withFakeTimers(fn: () => Promise<void>): Promise<void> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  try {
    await fn()
  } finally {
    vi.useRealTimers()
  }
}

/** Register tools from a throwaway plugin. */
export function registerTools(k: TestKernel, ...defs: ToolDefinition[]) {
  return k.ctx.plugin({
    name: 'fixture-tools',
    inject: ['tools'],
    apply: (ctx: Context) => { for (const def of defs) ctx.tools.register(def) },
  })
}

export interface Probe {
  /** fake time at which the body saw its signal abort */
  abortedAt?: number
  reason?: unknown
  /** fake time at which the body returned or threw */
  finishedAt?: number
  signal?: AbortSignal
}

/** A tool whose body works `ms` of fake time and stops when its signal aborts. */
export function observingTool(name: string, ms: number, probe: Probe, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return testTool(name, (_args, call: ToolCall) => new Promise((resolve, reject) => {
    probe.signal = call.signal
    const timer = setTimeout(() => {
      probe.finishedAt = Date.now()
      resolve(`${name} done`)
    }, ms)
    call.signal.addEventListener('abort', () => {
      clearTimeout(timer)
      probe.abortedAt = Date.now()
      probe.reason = call.signal.reason
      probe.finishedAt = Date.now()
      reject(call.signal.reason)
    }, { once: true })
  }), extra)
}

/** A tool whose body works `ms` of fake time whatever its signal says. */
export function stubbornTool(name: string, ms: number, probe: Probe, extra: Partial<ToolDefinition> = {}): ToolDefinition {
  return testTool(name, async (_args, call: ToolCall) => {
    probe.signal = call.signal
    call.signal.addEventListener('abort', () => {
      probe.abortedAt = Date.now()
      probe.reason = call.signal.reason
    }, { once: true })
    await new Promise((resolve) => setTimeout(resolve, ms))
    probe.finishedAt = Date.now()
    return `${name} done`
  }, extra)
}

export function resultEvents(k: TestKernel, callId?: string) {
  return k.session.events().filter((e) => e.type === 'tool/result' && (callId === undefined || (e.data as any).callId === callId))
}

export { createTestKernel, testTool }
