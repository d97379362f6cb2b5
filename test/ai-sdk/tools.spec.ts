/**
 * `aiSdkTools` under the AI SDK's own `generateText`, with the SDK's mock
 * model scripting the tool calls: every call runs through the kernel's
 * pipeline (the session log shows it), a denied call goes back to the model as
 * a tool error with its code, an aborted generation aborts the running body,
 * and the SDK's parallel calls keep the tools' concurrency classes.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { generateText, stepCountIs } from 'ai'
import { aiSdkTools } from '@dsh/ai-sdk'
import { answerApprovals, createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import type { ToolDefinition } from 'dsh'
import { scriptedModel, toolResultsSent } from './mock-model.js'

let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
})

function register(k: TestKernel, ...defs: ToolDefinition[]) {
  k.ctx.plugin({ name: 'test-tools', inject: ['tools'], apply: (ctx) => { for (const def of defs) ctx.tools.register(def) } })
}

const events = (k: TestKernel, type: string) => k.session.events().filter((e) => e.type === type).map((e) => e.data as any)

describe('aiSdkTools', () => {
  it('runs each model tool call through the pipeline: values, texts and a denial as a tool error the model is sent', async () => {
    kernel = await createTestKernel()
    let deniedRan = 0
    register(kernel,
      testTool('echo', (args: any) => ({ value: { echoed: args.text } }), { parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }),
      testTool('plain', () => 'plain text'),
      testTool('guarded', () => (deniedRan++, 'ran')))
    kernel.ctx.plugin({ name: 'deny-guarded', inject: ['tools'], apply: (ctx) => { ctx.tools.guard((exec) => (exec.name === 'guarded' ? 'guarded is off limits' : undefined)) } })
    const model = scriptedModel([
      [{ call: 'tc-echo', name: 'echo', input: { text: 'hi' } }, { call: 'tc-plain', name: 'plain', input: {} }, { call: 'tc-deny', name: 'guarded', input: {} }],
      [{ text: 'done' }],
    ])
    const result = await generateText({ model, tools: aiSdkTools(kernel, { session: kernel.session }), prompt: 'go', stopWhen: stepCountIs(3) })

    expect(result.text).toBe('done')
    expect(deniedRan).toBe(0)
    const error = result.steps[0].content.find((part) => part.type === 'tool-error')
    expect(error).toMatchObject({ toolCallId: 'tc-deny', toolName: 'guarded' })
    expect((error as any).error).toMatchObject({ code: 'DENIED', message: expect.stringMatching(/^DENIED: .*guarded is off limits/) })
    expect(toolResultsSent(model, 1)).toEqual({
      'tc-echo': { type: 'json', value: { echoed: 'hi' } },
      'tc-plain': { type: 'text', value: 'plain text' },
      'tc-deny': { type: 'error-text', value: expect.stringMatching(/^DENIED: .*guarded is off limits/) },
    })
    // the SDK's call ids are the pipeline's: one tool/call and one tool/result each
    expect(events(kernel, 'tool/call').map((d) => [d.callId, d.name])).toEqual([['tc-echo', 'echo'], ['tc-plain', 'plain'], ['tc-deny', 'guarded']])
    const results = Object.fromEntries(events(kernel, 'tool/result').map((d) => [d.callId, d]))
    expect(Object.keys(results).sort()).toEqual(['tc-deny', 'tc-echo', 'tc-plain'])
    expect(results['tc-deny']).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(results['tc-echo'].isError).toBe(false)
  })

  it('arguments the model got wrong end INVALID_ARGS in the pipeline and reach the model as a tool error', async () => {
    kernel = await createTestKernel()
    let ran = 0
    register(kernel, testTool('echo', () => (ran++, 'x'), { parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } }))
    const model = scriptedModel([[{ call: 'tc-1', name: 'echo', input: { text: 5, extra: true } }], [{ text: 'ok' }]])
    await generateText({ model, tools: aiSdkTools(kernel, { session: kernel.session }), prompt: 'go', stopWhen: stepCountIs(2) })
    expect(ran).toBe(0)
    expect(toolResultsSent(model, 1)['tc-1']).toEqual({ type: 'error-text', value: expect.stringMatching(/^INVALID_ARGS: /) })
    expect(events(kernel, 'tool/result')).toEqual([expect.objectContaining({ callId: 'tc-1', error: expect.objectContaining({ code: 'INVALID_ARGS' }) })])
  })

  it('an approval ask is answered by an approval/request listener, logged first; with no answer the call is refused', async () => {
    kernel = await createTestKernel()
    let ran = 0
    register(kernel, testTool('guarded', () => (ran++, 'ran')))
    kernel.ctx.plugin({ name: 'ask', apply: (ctx) => { ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'guarded' ? { kind: 'ask', reason: 'check' } : next())) } })
    const tools = aiSdkTools(kernel, { session: kernel.session })

    const unanswered = scriptedModel([[{ call: 'tc-1', name: 'guarded', input: {} }], [{ text: 'ok' }]])
    await generateText({ model: unanswered, tools, prompt: 'go', stopWhen: stepCountIs(2) })
    expect(ran).toBe(0)
    expect(toolResultsSent(unanswered, 1)['tc-1']).toEqual({ type: 'error-text', value: expect.stringMatching(/^(DENIED|APPROVAL_UNAVAILABLE): /) })

    const dispose = answerApprovals(kernel, { kind: 'approved', grant: 'once' })
    const answered = scriptedModel([[{ call: 'tc-2', name: 'guarded', input: {} }], [{ text: 'ok' }]])
    await generateText({ model: answered, tools, prompt: 'go', stopWhen: stepCountIs(2) })
    dispose()
    expect(ran).toBe(1)
    expect(toolResultsSent(answered, 1)['tc-2']).toEqual({ type: 'text', value: 'ran' })
    const order = kernel.session.events().filter((e) => (e.data as any)?.callId === 'tc-2').map((e) => e.type)
    expect(order).toEqual(['tool/call', 'approval/asked', 'approval/decided', 'tool/result'])
  })

  it('aborting the generation aborts the running body; the pipeline awaits it and logs ABORTED', async () => {
    kernel = await createTestKernel()
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    let sawAbort = false
    let finished = false
    register(kernel, testTool('slow', async (_args, call) => {
      started()
      await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }))
      sawAbort = true
      // the body still runs to its end after the abort: the pipeline waits for it
      await new Promise((resolve) => setTimeout(resolve, 20))
      finished = true
      return 'late'
    }))
    const controller = new AbortController()
    const model = scriptedModel([[{ call: 'tc-slow', name: 'slow', input: {} }], [{ text: 'never' }]])
    const generation = generateText({ model, tools: aiSdkTools(kernel, { session: kernel.session }), prompt: 'go', stopWhen: stepCountIs(2), abortSignal: controller.signal })
    await running
    controller.abort(new Error('the user stopped the agent'))
    await expect(generation).rejects.toThrow()
    expect(sawAbort).toBe(true)
    expect(finished).toBe(true)
    expect(events(kernel, 'tool/result')).toEqual([expect.objectContaining({ callId: 'tc-slow', isError: true, error: expect.objectContaining({ code: 'ABORTED' }) })])
  })

  it('calls of one step run together only when their tools are parallel', async () => {
    kernel = await createTestKernel()
    let active = 0
    const peaks: Record<string, number> = { exclusive: 0, parallel: 0 }
    const body = (kind: 'exclusive' | 'parallel') => async () => {
      active++
      peaks[kind] = Math.max(peaks[kind], active)
      await new Promise((resolve) => setTimeout(resolve, 15))
      active--
      return kind
    }
    register(kernel, testTool('solo', body('exclusive')), testTool('shared', body('parallel'), { concurrency: 'parallel' }))
    const tools = aiSdkTools(kernel, { session: kernel.session })
    const step = (name: string) => [1, 2, 3].map((n) => ({ call: `${name}-${n}`, name, input: {} }))
    await generateText({ model: scriptedModel([step('solo'), [{ text: 'ok' }]]), tools, prompt: 'go', stopWhen: stepCountIs(2) })
    await generateText({ model: scriptedModel([step('shared'), [{ text: 'ok' }]]), tools, prompt: 'go', stopWhen: stepCountIs(2) })
    expect(peaks).toEqual({ exclusive: 1, parallel: 3 })
  })

  it('under code mode the set is run_code alone: its sub-calls run through the pipeline, a direct native call reaches nothing', async () => {
    kernel = await createTestKernel({ tools: { mode: 'code' } })
    register(kernel, testTool('echo', (args: any) => ({ value: { echoed: args.text } })))
    const tools = aiSdkTools(kernel, { session: kernel.session })
    expect(Object.keys(tools)).toEqual(['run_code'])
    const program = 'const a = await tools.echo({ text: "x" }); return a.echoed + "!"'
    // a model naming a native tool directly finds none: under code only run_code exists
    const model = scriptedModel([[{ call: 'tc-code', name: 'run_code', input: { code: program } }, { call: 'tc-direct', name: 'echo', input: { text: 'y' } }], [{ text: 'ok' }]])
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2) })
    expect(toolResultsSent(model, 1)['tc-code']).toEqual({ type: 'text', value: 'x!' })
    expect(result.steps[0].content.find((p) => p.type === 'tool-error' && p.toolCallId === 'tc-direct')).toBeDefined()
    expect(events(kernel, 'tool/call').map((d) => d.name)).toEqual(['run_code', 'echo'])
    expect(events(kernel, 'tool/code-dispatch').map((d) => d.callId)).toEqual(['tc-code:code:1'])
  })

  it('the set has no prototype: a model naming toString or constructor finds no tool', async () => {
    kernel = await createTestKernel()
    register(kernel, testTool('constructor', () => 'own tool'))
    const tools = aiSdkTools(kernel, { session: kernel.session })
    expect(Object.getPrototypeOf(tools)).toBeNull()
    expect('toString' in tools).toBe(false)
    const model = scriptedModel([[{ call: 'tc-1', name: 'constructor', input: {} }, { call: 'tc-2', name: 'toString', input: {} }], [{ text: 'ok' }]])
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(2) })
    expect(toolResultsSent(model, 1)['tc-1']).toEqual({ type: 'text', value: 'own tool' })
    expect(result.steps[0].content.find((p) => p.type === 'tool-error' && p.toolCallId === 'tc-2')).toBeDefined()
    expect(events(kernel, 'tool/call').map((d) => d.name)).toEqual(['constructor'])
  })
})
