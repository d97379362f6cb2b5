import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { ApprovalRequestEvent } from '@dsh/approval'
import type { ToolCall } from '@dsh/tools'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { deferred } from './helpers.js'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

/** A kernel with tool `t`, a pre-execute listener asking for every call, and an approver. */
async function kernel(answer: ((request: ApprovalRequestEvent) => unknown) | undefined, options: Parameters<typeof createTestKernel>[0] = {}) {
  k = await createTestKernel(options)
  const state = { runs: 0, asked: 0, calls: [] as ToolCall[] }
  k.ctx.plugin({ name: 'tool', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(testTool('t', (args, call) => { state.runs++; state.calls.push(call); return 'ran' }))
    ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'policy says ask' }))
  } })
  if (answer) {
    k.ctx.plugin({ name: 'approver', apply: (ctx: Context) => {
      ctx.on('approval/request', (request) => { state.asked++; return answer(request) as any })
    } })
  }
  return state
}

const types = (k: TestKernel, callId: string) =>
  k.session.events().filter((e) => (e.data as any)?.callId === callId).map((e) => e.type)

describe('through the real pipeline', () => {
  it('approved → the body runs, and the audit reads call, asked, decided, result', async () => {
    const state = await kernel(() => ({ kind: 'approved', grant: 'once' }))
    const result = await k!.call('t', { x: 1 })
    expect(result.isError).toBe(false)
    expect(state.runs).toBe(1)
    expect(types(k!, result.callId)).toEqual(['tool/call', 'approval/asked', 'approval/decided', 'tool/result'])
    const asked = k!.session.events().find((e) => e.type === 'approval/asked')!
    expect(asked.data).toMatchObject({ name: 't', arguments: { x: 1 }, reason: 'policy says ask' })
  })

  it('denied → DENIED with the reason, the body never runs', async () => {
    const state = await kernel(() => ({ kind: 'denied', reason: 'not today' }))
    const result = await k!.call('t', {})
    expect(result.error).toEqual({ code: 'DENIED', message: 'approval denied: not today', source: { kind: 'approval', plugin: 'tool', detail: 'the tools/pre-execute listener of plugin tool' } })
    expect(state.runs).toBe(0)
  })

  it('nobody listening → APPROVAL_UNAVAILABLE, the body never runs', async () => {
    const state = await kernel(undefined)
    const result = await k!.call('t', {})
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(result.error?.message).toMatch(/no approval\/request listener answered/)
    expect(state.runs).toBe(0)
  })

  it('a throwing approver → APPROVAL_UNAVAILABLE, the body never runs', async () => {
    const state = await kernel(() => { throw new Error('tty gone') })
    const result = await k!.call('t', {})
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(result.error?.message).toMatch(/tty gone/)
    expect(state.runs).toBe(0)
  })

  it('a hanging approver → APPROVAL_UNAVAILABLE after approval.timeoutMs', async () => {
    const state = await kernel(() => new Promise(() => {}), { approval: { timeoutMs: 25 } })
    const result = await k!.call('t', {})
    expect(result.error).toEqual({ code: 'APPROVAL_UNAVAILABLE', message: 'approval unavailable (plugin tool asked: policy says ask): no answer within 25 ms', source: { kind: 'approval', plugin: 'tool', detail: 'the tools/pre-execute listener of plugin tool' } })
    expect(state.runs).toBe(0)
  })

  it('policy never → DENIED, the approving listener is never called', async () => {
    const state = await kernel(() => ({ kind: 'approved', grant: 'session' }), { approval: { policy: 'never' } })
    const result = await k!.call('t', {})
    expect(result.error?.code).toBe('DENIED')
    expect(state.asked).toBe(0)
    expect(state.runs).toBe(0)
  })

  it('preset full-access → DENIED, the approving listener is never called', async () => {
    const state = await kernel(() => ({ kind: 'approved', grant: 'once' }), { approval: { preset: 'full-access' } })
    expect((await k!.call('t', {})).error?.code).toBe('DENIED')
    expect(state.asked).toBe(0)
  })

  it('the caller aborting while approval is pending → APPROVAL_UNAVAILABLE, prompt dismissed, body never runs', async () => {
    const shown = deferred<ApprovalRequestEvent>()
    const state = await kernel((request) => { shown.resolve(request); return new Promise(() => {}) })
    const controller = new AbortController()
    const pending = k!.call('t', {}, { signal: controller.signal })
    const request = await shown.promise
    expect(request.signal.aborted).toBe(false)
    controller.abort()
    const result = await pending
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(result.error?.message).toMatch(/cancelled while approval was pending/)
    expect(request.signal.aborted).toBe(true)
    expect(state.runs).toBe(0)
    const decided = k!.session.events().find((e) => e.type === 'approval/decided')!
    expect(decided.data).toMatchObject({ by: 'abort' })
  })

  it('no open turn → APPROVAL_UNAVAILABLE, the approver is never called', async () => {
    const state = await kernel(() => ({ kind: 'approved', grant: 'once' }))
    k!.session.endTurn()
    const result = await k!.call('t', {})
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(result.error?.message).toMatch(/open turn/)
    expect(state.asked).toBe(0)
    expect(state.runs).toBe(0)
  })

  it('a session grant approves the same call again (keys reordered) and nothing wider', async () => {
    let answer: unknown = { kind: 'approved', grant: 'session' }
    const state = await kernel(() => answer)
    expect((await k!.call('t', { a: 1, b: [1, 2] })).isError).toBe(false)
    answer = { kind: 'denied', reason: 'no' }
    expect((await k!.call('t', { b: [1, 2], a: 1 })).isError).toBe(false)
    expect(state.asked).toBe(1)
    expect((await k!.call('t', { a: 1, b: [2, 1] })).error?.code).toBe('DENIED')
    expect(state.asked).toBe(2)
    expect(state.runs).toBe(2)
    const [grant] = k!.ctx.approval.grants(k!.session)
    await k!.ctx.approval.revoke(k!.session, grant.id)
    expect((await k!.call('t', { a: 1, b: [1, 2] })).error?.code).toBe('DENIED')
    expect(state.runs).toBe(2)
  })

  it('a guard still denies a call that asked: approval never overrides a guard, and nobody is asked about a call a guard refuses', async () => {
    const state = await kernel(() => ({ kind: 'approved', grant: 'once' }))
    k!.ctx.plugin({ name: 'guard', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.guard(() => 'guarded') } })
    expect((await k!.call('t', {})).error).toEqual({ code: 'DENIED', message: 'guarded', source: { kind: 'guard', plugin: 'guard', detail: '#1' } })
    expect(state.asked).toBe(0)
    expect(state.runs).toBe(0)
  })
})
