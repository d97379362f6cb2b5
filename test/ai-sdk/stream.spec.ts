/**
 * `aiSdkTools` under `streamText`: the tool calls of a streamed step run
 * through the pipeline, and a denial arrives in the stream as a `tool-error`
 * part whose error carries the code.
 */
import { afterEach, expect, it } from 'vitest'
import { stepCountIs, streamText } from 'ai'
import { aiSdkTools } from '@dsh/ai-sdk'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { scriptedStreamModel, toolResultsSent } from './mock-model.js'

let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
})

it('streamed tool calls run through the pipeline; a denial streams as a tool-error part', async () => {
  kernel = await createTestKernel()
  const k = kernel
  k.ctx.plugin({
    name: 'tools',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register(testTool('echo', (args: any) => ({ value: args })))
      ctx.tools.register(testTool('guarded', () => 'ran'))
      ctx.tools.guard((exec) => (exec.name === 'guarded' ? 'not today' : undefined))
    },
  })
  const model = scriptedStreamModel([
    [{ call: 's-1', name: 'echo', input: { a: 1 } }, { call: 's-2', name: 'guarded', input: {} }],
    [{ text: 'streamed' }],
  ])
  const result = streamText({ model, tools: aiSdkTools(k, { session: k.session }), prompt: 'go', stopWhen: stepCountIs(2) })
  const parts: Array<{ type: string; [key: string]: unknown }> = []
  for await (const part of result.fullStream) parts.push(part as any)
  expect(await result.text).toBe('streamed')
  expect(parts.find((p) => p.type === 'tool-result')).toMatchObject({ toolCallId: 's-1', output: { a: 1 } })
  const error = parts.find((p) => p.type === 'tool-error') as any
  expect(error).toMatchObject({ toolCallId: 's-2', error: { code: 'DENIED' } })
  expect(String(error.error.message)).toMatch(/^DENIED: .*not today/)
  expect(toolResultsSent(model, 1)['s-2']).toEqual({ type: 'error-text', value: expect.stringMatching(/^DENIED: /) })
  expect(k.session.events().filter((e) => e.type === 'tool/result').map((e) => (e.data as any).callId)).toEqual(['s-1', 's-2'])
})
