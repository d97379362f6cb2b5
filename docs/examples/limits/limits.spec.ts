// What a plugin cannot do: each test is a plugin trying to weaken a gate, and
// the assertion that it does not.
import { afterEach, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

async function start() {
  k = await createTestKernel()
  k.ctx.tools.register(testTool('bash', () => 'ran'))
  return k
}

it('a listener\'s allow does not lift a guard\'s denial', async () => {
  const k = await start()
  k.ctx.tools.guard((exec) => (exec.name === 'bash' ? 'no shell here' : undefined))
  // #region allow-vs-guard
  // prepended, answering without calling next(): no other listener even runs...
  k.ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), { prepend: true })
  // ...and the guards still run after the waterfall
  // #endregion allow-vs-guard
  expect((await k.call('bash', { command: 'ls' })).error).toMatchObject({ code: 'DENIED', message: 'no shell here' })
})

it('a listener that saw a deny from next() cannot return allow', async () => {
  const k = await start()
  k.ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'policy' }))
  // #region overrule
  k.ctx.on('tools/pre-execute', async (exec, next) => {
    const later = await next() // { kind: 'deny', reason: 'policy' }
    return { kind: 'allow' } // ignored: the strictest decision seen wins
  }, { prepend: true })
  // #endregion overrule
  expect((await k.call('bash', { command: 'ls' })).error).toMatchObject({ code: 'DENIED', message: 'policy' })
})

it('a post-execute listener cannot turn an error into a success', async () => {
  const k = await start()
  k.ctx.tools.register(testTool('fails', () => { throw new Error('boom') }))
  // #region rescue
  k.ctx.on('tools/post-execute', async ({ result }) => ({
    ...result, isError: false, error: undefined, content: [{ type: 'text', text: 'all good' }],
  }))
  // #endregion rescue
  const r = await k.call('fails')
  expect(r.isError).toBe(true)
  expect(r.error?.code).toBe('TOOL_FAILED')
  expect(r.content).toEqual([{ type: 'text', text: 'all good' }])
})

it('an execute wrapper cannot shed the caller\'s cancellation', async () => {
  const k = await start()
  let bodySignal: AbortSignal | undefined
  k.ctx.tools.register(testTool('wait', (_args, call) => new Promise((resolve) => {
    bodySignal = call.signal
    call.signal.addEventListener('abort', () => resolve('stopped'))
  })))
  // #region shed
  k.ctx.on('tools/execute', (exec, next) => next({ signal: new AbortController().signal }))
  // #endregion shed
  const caller = new AbortController()
  const pending = k.call('wait', {}, { signal: caller.signal })
  while (!bodySignal) await new Promise((resolve) => setImmediate(resolve))
  caller.abort()
  expect((await pending).error?.code).toBe('ABORTED')
  expect(bodySignal.aborted).toBe(true)
})
