/**
 * A body has one signal to listen to (DESIGN §16.2): `call.signal` and
 * `call.exec.signal` are the same signal, and it carries the caller's abort and
 * every deadline — timeout-policy's, a `run_code` program's — also into
 * sub-calls made with `ToolCall.execute` and from a program.
 *
 * Each body here listens to `call.exec.signal` only (what a body that reads its
 * execution sees) and says which reason reached it; a body that hears nothing
 * gives up after a bound, so a missed signal fails the test instead of hanging it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { ToolCall, ToolResult } from '@dsh/tools'
import { KernelError } from '@dsh/kernel'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

/** a bound on a body that hears nothing (never reached when the signal works) */
const GIVE_UP_MS = 5000

interface Heard {
  /** per tool name: what its body heard on `exec.signal` ('nothing' after the bound) */
  [tool: string]: string
}

/** `listen`: waits on `call.exec.signal` alone and records what reached it, and whether it was `call.signal`. */
function listener(heard: Heard, started: () => void) {
  return testTool('listen', (_args, call: ToolCall) => new Promise<string>((resolve) => {
    heard.same = String(call.exec.signal === call.signal)
    started()
    const signal = call.exec.signal
    const bound = setTimeout(() => { heard.listen = 'nothing'; resolve('gave up') }, GIVE_UP_MS)
    const onAbort = () => {
      clearTimeout(bound)
      const reason = signal.reason as { code?: string; message?: string } | undefined
      heard.listen = reason?.code ?? String(reason?.message ?? reason)
      resolve('stopped')
    }
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  }))
}

/** `outer`: calls `listen` as a sub-call and reports the sub-call's error code. */
const outer = testTool('outer', async (_args, call) => {
  const sub = await call.execute('listen', {})
  return { value: { sub: sub.error?.code ?? null } }
})

async function kernel(mode: 'native' | 'code', plugins: Record<string, object> = {}) {
  k = await createTestKernel({ tools: { mode }, plugins })
  const heard: Heard = {}
  let started!: () => void
  const running = new Promise<void>((resolve) => (started = resolve))
  k.ctx.plugin({ name: 'bodies', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(listener(heard, started))
    ctx.tools.register(outer)
  } })
  return { k, heard, running }
}

const code = (program: string) => ({ code: program })

/** Calls `name` with a caller's signal, aborts it once the listening body runs: the call ends ABORTED, and the body heard the caller's reason. */
async function callerAborts({ k, heard, running }: Awaited<ReturnType<typeof kernel>>, name: string, args: object = {}): Promise<void> {
  const caller = new AbortController()
  const pending = k.call(name, args, { signal: caller.signal })
  await running
  caller.abort(new Error('caller gave up'))
  expect((await pending).error?.code).toBe('ABORTED')
  expect(heard).toEqual({ same: 'true', listen: 'caller gave up' })
}

describe('one signal a body listens to', () => {
  it("timeout-policy's deadline reaches exec.signal, which is call.signal", async () => {
    const { k, heard } = await kernel('native', { 'timeout-policy': { tools: { listen: 30 } } })
    const result = await k.call('listen')
    expect(result.error?.code).toBe('TIMEOUT')
    expect(heard).toEqual({ same: 'true', listen: 'TIMEOUT' })
  })

  it("the caller's abort reaches exec.signal under a deadline wrapper too", async () => {
    await callerAborts(await kernel('native', { 'timeout-policy': { tools: { listen: GIVE_UP_MS * 2 } } }), 'listen')
  })

  it("a sub-call's own deadline reaches the sub-call body through ToolCall.execute", async () => {
    const { k, heard } = await kernel('native', { 'timeout-policy': { tools: { listen: 30 } } })
    const result = await k.call('outer')
    expect(result.value).toEqual({ sub: 'TIMEOUT' })
    expect(heard).toEqual({ same: 'true', listen: 'TIMEOUT' })
  })

  it("the calling body's deadline reaches the sub-call body", async () => {
    const { k, heard } = await kernel('native', { 'timeout-policy': { tools: { outer: 30 } } })
    const result: ToolResult = await k.call('outer')
    expect(result.error?.code).toBe('TIMEOUT')
    expect(heard).toEqual({ same: 'true', listen: 'TIMEOUT' })
  })

  it("the caller's abort reaches a sub-call body through ToolCall.execute", async () => {
    await callerAborts(await kernel('native', { 'timeout-policy': { tools: { outer: GIVE_UP_MS * 2, listen: GIVE_UP_MS * 2 } } }), 'outer')
  })

  it("under code mode, a program's sub-call hears its own deadline", async () => {
    const { k, heard } = await kernel('code', { 'timeout-policy': { tools: { listen: 30 } } })
    const result = await k.call('run_code', code('try { await tools.listen({}) } catch (e) { return String(e.code ?? e.message) } return "no error"'))
    expect(result.isError, JSON.stringify(result)).toBe(false)
    expect(result.value).toBe('TIMEOUT')
    expect(heard).toEqual({ same: 'true', listen: 'TIMEOUT' })
  })

  it("under code mode, a deadline on run_code reaches a program's sub-call body", async () => {
    const { k, heard, running } = await kernel('code')
    // a tools/execute wrapper holding run_code's deadline, fired once the sub-call runs (no race with the runtime's start)
    const deadline = new AbortController()
    k.ctx.plugin({ name: 'run-deadline', inject: ['tools'], apply: (ctx: Context) => {
      ctx.on('tools/execute', (exec, next) => next(exec.name === 'run_code' ? { signal: deadline.signal } : undefined))
    } })
    const pending = k.call('run_code', code('await tools.listen({}); return 1'))
    await running
    deadline.abort(new KernelError('TIMEOUT', 'run_code exceeded its limit'))
    expect((await pending).error?.code).toBe('TIMEOUT')
    expect(heard).toEqual({ same: 'true', listen: 'TIMEOUT' })
  })

  it("under code mode, the caller's abort reaches a program's sub-call body", async () => {
    await callerAborts(await kernel('code', { 'timeout-policy': { tools: { listen: GIVE_UP_MS * 2 } } }), 'run_code', code('await tools.listen({}); return 1'))
  })

  it('a call under no wrapper hands the body the caller\'s signal as both', async () => {
    await callerAborts(await kernel('native'), 'listen')
  })
})
