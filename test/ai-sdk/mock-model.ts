// Scripted models on the AI SDK's own mock (`ai/test`): each step the model
// answers (whole, or as a stream) with the tool calls or text given for it, and, like a real provider,
// rejects once the generation's abort signal has fired.
import { MockLanguageModelV3 } from 'ai/test'
import { simulateReadableStream } from 'ai'

// the provider types, as the mock's own signature names them (`@ai-sdk/provider` is not a dependency here)
type Generate = MockLanguageModelV3['doGenerate']
type LanguageModelV3CallOptions = Parameters<Generate>[0]
type LanguageModelV3GenerateResult = Awaited<ReturnType<Generate>>
type LanguageModelV3Content = LanguageModelV3GenerateResult['content'][number]

export type Step = Array<{ call: string; name: string; input: unknown } | { text: string }>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

function answer(step: Step): LanguageModelV3GenerateResult {
  const content: LanguageModelV3Content[] = step.map((part) => 'text' in part
    ? { type: 'text', text: part.text }
    : { type: 'tool-call', toolCallId: part.call, toolName: part.name, input: JSON.stringify(part.input) })
  const calls = step.some((part) => 'call' in part)
  return { content, finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] }
}

export function scriptedModel(steps: Step[]): MockLanguageModelV3 {
  let next = 0
  return new MockLanguageModelV3({
    async doGenerate(options: LanguageModelV3CallOptions) {
      options.abortSignal?.throwIfAborted()
      const step = steps[next++]
      if (!step) throw new Error(`the script has no step ${next}`)
      return answer(step)
    },
  })
}

/** The tool results the model was sent in its `n`th call (0-based), by tool call id. */
export function toolResultsSent(model: MockLanguageModelV3, n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const message of (model.doGenerateCalls[n] ?? model.doStreamCalls[n])?.prompt ?? []) {
    if (message.role !== 'tool') continue
    for (const part of message.content) if (part.type === 'tool-result') out[part.toolCallId] = part.output
  }
  return out
}

type Stream = MockLanguageModelV3['doStream']
type LanguageModelV3StreamPart = Awaited<ReturnType<Stream>>['stream'] extends ReadableStream<infer P> ? P : never

/** The same script answered as a stream, for `streamText`. */
export function scriptedStreamModel(steps: Step[]): MockLanguageModelV3 {
  let next = 0
  return new MockLanguageModelV3({
    async doStream(options: Parameters<Stream>[0]) {
      options.abortSignal?.throwIfAborted()
      const step = steps[next++]
      if (!step) throw new Error(`the script has no step ${next}`)
      const { content, finishReason } = answer(step)
      const chunks: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      for (const [i, part] of content.entries()) {
        if (part.type === 'text') chunks.push({ type: 'text-start', id: `t${i}` }, { type: 'text-delta', id: `t${i}`, delta: part.text }, { type: 'text-end', id: `t${i}` })
        else if (part.type === 'tool-call') chunks.push(part)
      }
      chunks.push({ type: 'finish', finishReason, usage })
      return { stream: simulateReadableStream({ chunks }) }
    },
  })
}
