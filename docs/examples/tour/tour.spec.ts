// The tests of the tour example: each hook it adds, each with the case where
// it must not help.
import { afterEach, expect, it } from 'vitest'
import { createTestKernel, loadPlugin, testTool, type TestKernel } from 'dsh/testing'
import type { Execution } from 'dsh'
import * as tour from './src/index.js'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((b) => b.text ?? '').join('')

async function start(config: Partial<tour.Config> = {}) {
  k = await createTestKernel()
  // a stand-in named bash: it echoes its command
  k.ctx.tools.register(testTool('bash', (args) => `ran ${String(args.command)}`))
  await loadPlugin(k.ctx, tour, config)
  return k
}

it('adds a tool with a value and its prompt guidance, and a prompt section', async () => {
  const k = await start({ ask: ['^git push'] })
  const r = await k.call('word_count', { text: 'one two  three' })
  expect(r).toMatchObject({ isError: false, content: [{ type: 'text', text: '3 words' }], value: { words: 3 } })
  expect((await k.call('word_count', { text: 3 })).error?.code).toBe('INVALID_ARGS')
  const prompt = await k.ctx.systemPrompt.assemble()
  expect(prompt).toContain('Use word_count instead of `wc -w`.')
  expect(prompt).toContain('need a human\'s approval: ^git push.')
})

// #region test-ask
it('asks before a matching command; only an approval lets it run', async () => {
  const k = await start({ ask: ['^git push'] })
  expect((await k.call('bash', { command: 'git push' })).error?.code).toBe('APPROVAL_UNAVAILABLE')

  const answer = k.ctx.on('approval/request', () => ({ kind: 'denied', reason: 'not now' }))
  expect((await k.call('bash', { command: 'git push' })).error).toMatchObject({ code: 'DENIED', message: 'approval denied: not now' })
  answer()

  k.ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' }))
  expect(text(await k.call('bash', { command: 'git push' }))).toBe('ran git push')
  expect(text(await k.call('bash', { command: 'git status' }))).toBe('ran git status')
  expect(k.session.events().filter((e) => e.type === 'tour/asked').map((e) => e.data))
    .toEqual([1, 2, 3].map(() => ({ callId: expect.any(String), pattern: '^git push' })))
})
// #endregion test-ask

it('keeps a later listener\'s deny instead of asking', async () => {
  const k = await start({ ask: ['^git push'] })
  k.ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' }))
  k.ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'frozen' }))
  expect((await k.call('bash', { command: 'git push' })).error).toMatchObject({ code: 'DENIED', message: 'frozen' })
})

it('gives every call a deadline; the body sees it through its signal', async () => {
  const k = await start({ timeoutMs: 20 })
  k.ctx.tools.register(testTool('wait', (_args, call) => new Promise((resolve) => {
    call.signal.addEventListener('abort', () => resolve('stopped'))
  })))
  expect((await k.call('wait')).error).toMatchObject({ code: 'TIMEOUT', message: 'wait exceeded 20 ms' })
  expect(text(await k.call('bash', { command: 'quick' }))).toBe('ran quick')
})

// #region test-redact
it('cuts secrets from results and says so', async () => {
  const k = await start()
  const seen: Array<[string, number]> = []
  k.ctx.on('tour/redacted', (exec: Execution, count: number) => { seen.push([exec.callId, count]) })
  k.ctx.tools.register(testTool('env', () => ({ content: 'KEY=sk-0123456789abcdefXYZ', value: 'sk-0123456789abcdefXYZ' })))

  const r = await k.call('env', {}, { callId: 'env-1' })
  expect(r.content).toEqual([{ type: 'text', text: 'KEY=[redacted]' }])
  expect(r.value).toBeUndefined()
  expect(seen).toEqual([['env-1', 1]])
})
// #endregion test-redact

it('withholds an error that holds a secret, and never turns it into a success', async () => {
  const k = await start()
  k.ctx.tools.register(testTool('leaky', () => { throw new Error('auth failed for sk-0123456789abcdefXYZ') }))
  const r = await k.call('leaky')
  expect(r.isError).toBe(true)
  expect(r.error).toMatchObject({ code: 'BLOCKED', message: '1 secret(s) withheld from an error' })
  expect(JSON.stringify(r)).not.toContain('sk-0123')
})
