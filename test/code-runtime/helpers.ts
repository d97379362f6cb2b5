import { CodeRuntime, type CodeRuntimeOptions, type JsonValue, type RunRequest, type SubCallBridge, type SubCallOutcome } from '@dsh/code-runtime'
import { afterAll, beforeAll } from 'vitest'

/** A runtime started before the file's tests and disposed after them. */
export function useRuntime(options: CodeRuntimeOptions = {}): () => CodeRuntime {
  let runtime: CodeRuntime | undefined
  beforeAll(async () => {
    runtime = new CodeRuntime(options)
    await runtime.ready()
  })
  afterAll(async () => {
    await runtime?.dispose()
  })
  return () => {
    if (!runtime) throw new Error('runtime not started')
    return runtime
  }
}

/** Answers every sub-call with its own name and arguments. */
export const echo: SubCallBridge = async (name, args) => ({ ok: true, value: { name, args } })

/** Never answers. */
export const never: SubCallBridge = () => new Promise(() => {})

export function request(code: string, over: Partial<RunRequest> = {}): RunRequest {
  return { code, tools: ['echo'], call: echo, ...over }
}

/** A bridge that records its calls and the most that were in flight at once. */
export function trackingBridge(answer: (name: string, args: JsonValue, index: number) => SubCallOutcome, delayMs = 0) {
  const calls: { name: string; args: JsonValue; index: number; signal: AbortSignal }[] = []
  let inFlight = 0
  let maxInFlight = 0
  const call: SubCallBridge = async (name, args, index, signal) => {
    calls.push({ name, args, index, signal })
    maxInFlight = Math.max(maxInFlight, ++inFlight)
    try {
      if (delayMs > 0) await sleep(delayMs)
      return answer(name, args, index)
    } finally {
      inFlight--
    }
  }
  return { call, calls, maxInFlight: () => maxInFlight }
}

export const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms))

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
