// The README's example is this directory's readme-example.ts, word for word, and it runs
// against the SDK's client: a write the kernel asks about is approved in the "editor".
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk'
import { afterEach, expect, it } from 'vitest'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { dshAgent } from './readme-example.js'

const readme = readFileSync(new URL('../../adapters/acp/README.md', import.meta.url), 'utf8')
const example = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8')
let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
})

it('the README shows readme-example.ts exactly', () => {
  expect(/```ts\n([\s\S]*?)```/.exec(readme)?.[1]).toBe(example)
})

it('the example agent asks the editor and runs the approved write in its session', async () => {
  kernel = await createTestKernel({ sandbox: { mode: 'workspace-write' }, plugins: { 'workspace-tools': {} } })
  const k = kernel
  k.ctx.plugin({ name: 'ask', apply: (ctx) => { ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'write' ? { kind: 'ask' } : next())) } })
  const results: unknown[] = []
  const agent = dshAgent(k, async (session, prompt) => {
    const text = prompt.prompt[0].type === 'text' ? prompt.prompt[0].text : ''
    results.push(await k.execute({ callId: 'c-1', name: 'write', arguments: { file_path: 'a.txt', content: text }, session }))
  })
  const toAgent = new TransformStream<Uint8Array, Uint8Array>()
  const toClient = new TransformStream<Uint8Array, Uint8Array>()
  const connection = agent.connect(acp.ndJsonStream(toClient.writable, toAgent.readable))
  const titles: string[] = []
  const editor = acp.client({ name: 'editor' }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    titles.push(params.toolCall.title ?? '')
    return { outcome: { outcome: 'selected', optionId: 'allow-once' } }
  })
  let sessionId = ''
  await editor.connectWith(acp.ndJsonStream(toAgent.writable, toClient.readable), async (cx) => {
    await cx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
    sessionId = (await cx.request(acp.methods.agent.session.new, { cwd: k.dir, mcpServers: [] })).sessionId
    await cx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'from the editor' }] })
  })
  connection.close()
  expect(results).toEqual([expect.objectContaining({ isError: false })])
  expect(titles).toEqual([`Write ${join(k.dir, 'a.txt')}`])
  expect(readFileSync(join(k.dir, 'a.txt'), 'utf8')).toBe('from the editor')
  const log = readFileSync(join(k.dir, '.dsh/sessions', `${sessionId}.jsonl`), 'utf8')
  expect(log).toContain('"approval/decided"')
})
