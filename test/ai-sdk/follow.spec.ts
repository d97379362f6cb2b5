/**
 * `followAiSdkTools`: the set follows `tools/change` — a tool registered or
 * removed (by a plugin, or by a reload) shows in `current()` and is announced
 * once; a call of a tool removed after the set was handed out is refused by
 * the pipeline; disposing leaves no listener behind.
 */
import { afterEach, expect, it } from 'vitest'
import { generateText, stepCountIs, type ToolSet } from 'ai'
import { followAiSdkTools } from '@dsh/ai-sdk'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { scriptedModel, toolResultsSent } from './mock-model.js'

let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
})

const hooks = (k: TestKernel, name: string) => ((k.ctx.root.lifecycle as any)._hooks[name] ?? []).length as number
// the tool service announces a change in a microtask
const turn = () => new Promise((resolve) => setImmediate(resolve))

it('current() follows registrations and removals; each change is announced once; dispose removes the listener', async () => {
  kernel = await createTestKernel()
  const before = hooks(kernel, 'tools/change')
  const seen: string[][] = []
  const source = followAiSdkTools(kernel, { session: kernel.session, onChange: (tools) => seen.push(Object.keys(tools)) })
  expect(hooks(kernel, 'tools/change')).toBe(before + 1)
  const first = source.current()
  expect(Object.keys(first)).toEqual([])
  expect(source.current()).toBe(first)

  const fork = kernel.ctx.plugin({
    name: 'late-tools',
    inject: ['tools'],
    apply: (ctx) => {
      ctx.tools.register(testTool('a', () => 'from a'))
      ctx.tools.register(testTool('b'))
    },
  })
  await turn()
  expect(seen).toEqual([['a', 'b']])
  const second = source.current()
  expect(Object.keys(second)).toEqual(['a', 'b'])

  fork.dispose()
  await turn()
  expect(seen).toEqual([['a', 'b'], []])

  // a set handed out before the removal: its call reaches the pipeline, which refuses the unknown tool
  const model = scriptedModel([[{ call: 'tc-1', name: 'a', input: {} }], [{ text: 'ok' }]])
  await generateText({ model, tools: second as ToolSet, prompt: 'go', stopWhen: stepCountIs(2) })
  expect(toolResultsSent(model, 1)['tc-1']).toEqual({ type: 'error-text', value: expect.stringMatching(/^UNKNOWN_TOOL: /) })

  source.dispose()
  source.dispose()
  expect(hooks(kernel, 'tools/change')).toBe(before)
  kernel.ctx.plugin({ name: 'after', inject: ['tools'], apply: (ctx) => { ctx.tools.register(testTool('c')) } })
  await turn()
  expect(seen).toHaveLength(2)
})

it('a reload that changes the tool set is announced; a throwing onChange is reported and the set still follows', async () => {
  kernel = await createTestKernel()
  const errors: unknown[] = []
  const source = followAiSdkTools(kernel, {
    session: kernel.session,
    onChange: () => { throw new Error('host bug') },
    onError: (error) => errors.push(error),
  })
  await kernel.reload({ plugins: { 'workspace-tools': { workspace: kernel.dir } } })
  await turn()
  expect(errors).toHaveLength(1)
  expect(Object.keys(source.current())).toEqual(expect.arrayContaining(['read', 'write', 'edit', 'bash']))
  source.dispose()
})
