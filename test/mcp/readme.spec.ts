// The README's example is this directory's readme-example.ts, word for word, and it serves a
// kernel to a client speaking JSON-RPC lines over a pair of streams.
import { readFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { afterEach, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import type { DshMcpServer } from '@dsh/mcp'
import { serve } from './readme-example.js'

const readme = readFileSync(new URL('../../adapters/mcp/README.md', import.meta.url), 'utf8')
const example = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8')
let kernel: TestKernel | undefined
let server: DshMcpServer | undefined
afterEach(async () => {
  await server?.close('test over')
  await kernel?.cleanup()
  server = kernel = undefined
})

it('the README shows readme-example.ts exactly', () => {
  expect(/```ts\n([\s\S]*?)```/.exec(readme)?.[1]).toBe(example)
})

it('the example answers initialize, lists the kernel\'s tools and runs a call in the connection\'s session', async () => {
  kernel = await createTestKernel()
  kernel.ctx.plugin({ name: 'greeter', inject: ['tools'], apply: (ctx) => { ctx.tools.register(testTool('greet', () => 'hello')) } })
  const input = new PassThrough()
  const output = new PassThrough()
  const answers = new Map<number, any>()
  const waiting = new Map<number, () => void>()
  let buffered = ''
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8')
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at))
      buffered = buffered.slice(at + 1)
      if (typeof message.id === 'number') {
        answers.set(message.id, message)
        waiting.get(message.id)?.()
      }
    }
  })
  const request = (id: number, method: string, params: object) => {
    const answered = new Promise<void>((resolve) => waiting.set(id, resolve))
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    return answered.then(() => answers.get(id))
  }
  server = await serve(kernel, input, output)
  const init = await request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme', version: '0' } })
  expect(init.result.serverInfo.name).toBe('dsh')
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  const list = await request(2, 'tools/list', {})
  expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('greet')
  const call = await request(3, 'tools/call', { name: 'greet', arguments: {} })
  expect(call.result).toMatchObject({ content: [{ type: 'text', text: 'hello' }] })
  expect(call.result.isError).toBeFalsy()
  const session = server.session!
  await server.close('stdin closed')
  server = undefined
  const types = session.events().map((event) => event.type)
  expect(types).toEqual(expect.arrayContaining(['mcp/connected', 'tool/call', 'tool/result', 'mcp/closed']))
})
