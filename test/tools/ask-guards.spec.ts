/**
 * A guard may answer `{ ask: reason }`: the call then needs an approval even
 * where every `tools/pre-execute` listener allowed it — also a prepended one
 * that answers allow without calling next(). deny > ask > allow; nothing but
 * an approval lets an asking guard's call run.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { answerApprovals, createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { eventsOf } from './helpers.js'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

/** A kernel with `bash`-like tool `push` and plugin `git-rules` whose guard asks on it; `ran` counts bodies. */
async function setUp() {
  k = await createTestKernel()
  const state = { ran: 0, requests: [] as ApprovalRequestEvent[] }
  k.ctx.plugin({ name: 'tools', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(testTool('push', () => { state.ran++; return 'pushed' }))
    ctx.tools.register(testTool('status', () => { state.ran++; return 'clean' }))
  } })
  k.ctx.plugin({ name: 'git-rules', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.guard(function noUnaskedPush(exec) {
      return exec.name === 'push' ? { ask: 'git push publishes commits' } : undefined
    })
  } })
  // another plugin's listener, first in line, that allows without next(): the rest of gate 1 never runs
  k.ctx.plugin({ name: 'yes-man', inject: ['tools'], apply: (ctx: Context) => {
    ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), true)
  } })
  return state
}

describe('ask guards', () => {
  it('a prepended allow-without-next listener does not silence the guard\'s ask: with no approver the call is refused and never runs', async () => {
    const state = await setUp()
    const result = await k!.call('push', {})
    expect(result.error).toEqual({
      code: 'APPROVAL_UNAVAILABLE',
      message: expect.stringMatching(/^approval unavailable \(guard noUnaskedPush of plugin git-rules asked: git push publishes commits\): /),
      source: { kind: 'approval', plugin: 'git-rules', detail: 'guard noUnaskedPush of plugin git-rules' },
    })
    expect(state.ran).toBe(0)
    // the refusal, with who decided, is what the session log holds
    const logged = eventsOf(k!, result.callId).find((e) => e.type === 'tool/result')!
    expect((logged.data as any).error.source).toEqual({ kind: 'approval', plugin: 'git-rules', detail: 'guard noUnaskedPush of plugin git-rules' })
    // a call the guard does not ask about runs as before
    expect((await k!.call('status', {})).isError).toBe(false)
    expect(state.ran).toBe(1)
  })

  it('an approval lets it run; the approver is shown the guard\'s reason', async () => {
    const state = await setUp()
    answerApprovals(k!, (request) => { state.requests.push(request); return { kind: 'approved', grant: 'once' } })
    const result = await k!.call('push', {})
    expect(result.isError).toBe(false)
    expect(state.ran).toBe(1)
    expect(state.requests.map((r) => r.reason)).toEqual(['git push publishes commits'])
    expect(eventsOf(k!, result.callId).map((e) => e.type)).toEqual(['tool/call', 'approval/asked', 'approval/decided', 'tool/result'])
  })

  it('an approver that denies, or throws, refuses the call', async () => {
    const state = await setUp()
    const stop = answerApprovals(k!, { kind: 'denied', reason: 'not on Fridays' })
    expect((await k!.call('push', {})).error).toMatchObject({ code: 'DENIED', message: 'approval denied: not on Fridays', source: { kind: 'approval', plugin: 'git-rules' } })
    stop()
    answerApprovals(k!, () => { throw new Error('the terminal went away') })
    const thrown = await k!.call('push', {})
    expect(thrown.error).toMatchObject({ code: 'APPROVAL_UNAVAILABLE', source: { kind: 'approval', plugin: 'git-rules' } })
    expect(thrown.error?.message).toMatch(/the terminal went away/)
    expect(state.ran).toBe(0)
  })

  it('gate 1\'s ask and the guard\'s are one question with both reasons; a guard\'s deny beats any ask and nobody is asked', async () => {
    const state = await setUp()
    answerApprovals(k!, (request) => { state.requests.push(request); return { kind: 'approved', grant: 'once' } })
    const fork = k!.ctx.plugin({ name: 'policy', inject: ['tools'], apply: (ctx: Context) => {
      // prepended too: first in line, it asks (and yes-man never runs)
      ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'pushes are reviewed' }), true)
    } })
    expect((await k!.call('push', {})).isError).toBe(false)
    expect(state.requests.map((r) => r.reason)).toEqual(['pushes are reviewed; git push publishes commits'])
    fork.dispose()

    k!.ctx.plugin({ name: 'freeze', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.guard(() => 'the repository is frozen') } })
    const before = state.requests.length
    const result = await k!.call('push', {})
    expect(result.error).toEqual({ code: 'DENIED', message: 'the repository is frozen', source: { kind: 'guard', plugin: 'freeze', detail: '#1' } })
    expect(state.requests.length).toBe(before)
    expect(state.ran).toBe(1)
  })

  it('an async ask counts the same; a malformed ask ({ ask: \'\' }, extra keys) denies', async () => {
    k = await createTestKernel()
    let ran = 0
    const verdicts: unknown[] = [Promise.resolve({ ask: 'later' }), { ask: '' }, { ask: 'x', allow: true }, { ask: 3 }]
    let verdict: unknown
    k.ctx.plugin({ name: 'g', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('t', () => { ran++; return 'ok' }))
      ctx.tools.guard(() => verdict as any)
    } })
    verdict = verdicts[0]
    expect((await k.call('t', {})).error?.code).toBe('APPROVAL_UNAVAILABLE')
    for (const bad of verdicts.slice(1)) {
      verdict = bad
      const result = await k.call('t', {})
      expect(result.error).toMatchObject({ code: 'DENIED', source: { kind: 'guard', plugin: 'g' } })
      expect(result.error?.message).toMatch(/not a reason, \{ ask: reason \} or undefined/)
    }
    expect(ran).toBe(0)
  })
})
