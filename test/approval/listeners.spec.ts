import { afterEach, describe, expect, it, vi } from 'vitest'
import { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { approvalEvents, deferred, settle, setup, type Setup } from './helpers.js'

let s: Setup | undefined
afterEach(async () => { await s?.cleanup(); s = undefined })

const decided = (path: string) => approvalEvents(path).filter((e) => e.type === 'approval/decided')

/** Run `body` with setTimeout faked; real timers come back whatever happens. */
async function withFakeTimers(body: () => Promise<void>) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  try {
    await body()
  } finally {
    vi.useRealTimers()
  }
}

describe('nobody answers', () => {
  it('ends unavailable through the fallback when no listener is registered', async () => {
    s = await setup()
    expect(await s.approval.request({ exec: s.exec('t') })).toEqual({ kind: 'unavailable', reason: 'no approval/request listener answered' })
    expect(decided(s.session.path)[0].data.by).toBe('fallback')
  })

  it('ends unavailable when every listener passes to next()', async () => {
    s = await setup()
    s.plugin('a', (ctx) => { ctx.on('approval/request', (req, next) => next()) })
    s.plugin('b', (ctx) => { ctx.on('approval/request', async (req, next) => await next()) })
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('unavailable')
  })
})

describe('a throwing listener', () => {
  for (const [what, listener] of [
    ['throws', () => { throw new Error('prompt crashed') }],
    ['rejects', async () => { throw new Error('prompt crashed') }],
  ] as const) {
    it(`${what} → unavailable naming the failure; a later approving listener is not reached`, async () => {
      s = await setup()
      let later = 0
      s.plugin('bad', (ctx) => { ctx.on('approval/request', listener as any) })
      s.plugin('good', (ctx) => { ctx.on('approval/request', () => { later++; return { kind: 'approved', grant: 'once' } }) })
      const outcome = await s.approval.request({ exec: s.exec('t') })
      expect(outcome).toEqual({ kind: 'unavailable', reason: 'an approval/request listener failed: prompt crashed' })
      expect(later).toBe(0)
      expect(decided(s.session.path)[0].data.by).toBe('error')
    })
  }
})

describe('a hanging listener', () => {
  it('times out after the default 600000 ms, exactly, and the request signal aborts', async () => {
    s = await setup()
    const seen = deferred<ApprovalRequestEvent>()
    s.plugin('hang', (ctx) => { ctx.on('approval/request', (request) => { seen.resolve(request); return new Promise(() => {}) }) })
    await withFakeTimers(async () => {
      let outcome: unknown
      const pending = s!.approval.request({ exec: s!.exec('t') }).then((o) => { outcome = o })
      const request = await seen.promise
      vi.advanceTimersByTime(599_999)
      await settle()
      expect(outcome).toBeUndefined()
      expect(request.signal.aborted).toBe(false)
      expect(s!.approval.pending(s!.session).map((p) => p.state)).toEqual(['pending'])
      vi.advanceTimersByTime(1)
      await pending
      expect(outcome).toEqual({ kind: 'unavailable', reason: 'no answer within 600000 ms' })
      expect(request.signal.aborted).toBe(true)
      expect(vi.getTimerCount()).toBe(0)
    })
    expect(decided(s.session.path)[0].data.by).toBe('timeout')
    expect(s.approval.pending(s.session)).toEqual([])
  })

  it('honours a configured timeoutMs and ignores the late answer', async () => {
    s = await setup({ timeoutMs: 20 })
    const late = deferred<unknown>()
    s.plugin('slow', (ctx) => { ctx.on('approval/request', () => late.promise as any) })
    const outcome = await s.approval.request({ exec: s.exec('t') })
    expect(outcome).toEqual({ kind: 'unavailable', reason: 'no answer within 20 ms' })
    late.resolve({ kind: 'approved', grant: 'session' })
    await settle()
    expect(decided(s.session.path)).toHaveLength(1)
    expect(s.approval.grants(s.session)).toEqual([])
  })

  it('clears its timer when a listener answers', async () => {
    s = await setup()
    s.plugin('quick', (ctx) => { ctx.on('approval/request', () => ({ kind: 'denied', reason: 'no' })) })
    await withFakeTimers(async () => {
      expect(await s!.approval.request({ exec: s!.exec('t') })).toEqual({ kind: 'denied', reason: 'no' })
      expect(vi.getTimerCount()).toBe(0)
    })
  })
})

describe('a double-answering listener', () => {
  it('calls next() twice and returns the rejection → unavailable; the later listener answers once', async () => {
    s = await setup()
    let later = 0
    s.plugin('twice', (ctx) => { ctx.on('approval/request', async (req, next) => { await next(); return next() }) })
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { later++; return { kind: 'approved', grant: 'once' } }) })
    const outcome = await s.approval.request({ exec: s.exec('t') })
    expect(outcome.kind).toBe('unavailable')
    expect(later).toBe(1)
    expect(decided(s.session.path)).toHaveLength(1)
  })

  it('calls next() twice and swallows the rejection → still unavailable: a broken listener is not trusted', async () => {
    s = await setup()
    let second: unknown
    s.plugin('twice', (ctx) => {
      ctx.on('approval/request', async (req, next) => {
        const first = await next()
        second = await next().catch((e) => e)
        return first
      })
    })
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => ({ kind: 'approved', grant: 'session' })) })
    const outcome = await s.approval.request({ exec: s.exec('t', { x: 1 }) })
    expect(KernelError.is(second, 'NEXT_CALLED_TWICE')).toBe(true)
    expect(outcome).toEqual({ kind: 'unavailable', reason: 'approval/request listener #1 called next() more than once' })
    expect(s.approval.grants(s.session)).toEqual([])
    expect(decided(s.session.path)).toHaveLength(1)
  })

  it('answers, then its prompt "answers" again: one decision, one grant at most', async () => {
    s = await setup()
    let answer!: (value: unknown) => void
    s.plugin('ui', (ctx) => {
      ctx.on('approval/request', () => new Promise((resolve) => {
        answer = resolve
        resolve({ kind: 'approved', grant: 'session' })
      }) as any)
    })
    const outcome = await s.approval.request({ exec: s.exec('t', { x: 1 }) })
    answer({ kind: 'denied', reason: 'second press' })
    await settle()
    expect(outcome).toEqual({ kind: 'approved', grant: 'session' })
    expect(decided(s.session.path)).toHaveLength(1)
    expect(approvalEvents(s.session.path).filter((e) => e.type === 'approval/granted')).toHaveLength(1)
    expect(s.approval.grants(s.session)).toHaveLength(1)
  })
})

describe('malformed answers', () => {
  const cases: Array<[string, unknown]> = [
    ['undefined', undefined],
    ['a string', 'yes'],
    ['an unknown kind', { kind: 'allow' }],
    ['approved without grant', { kind: 'approved' }],
    ['approved with an unknown grant', { kind: 'approved', grant: 'forever' }],
    ['approved with a sandbox mode nobody asked for', { kind: 'approved', grant: 'once', sandboxMode: 'danger-full-access' }],
    ['a getter that says approved once read', Object.defineProperty({ grant: 'once' }, 'kind', { get: () => 'approved', enumerable: true })],
    ['an array', [{ kind: 'approved', grant: 'once' }]],
  ]
  for (const [what, answer] of cases) {
    it(`${what} → unavailable`, async () => {
      s = await setup()
      s.plugin('ui', (ctx) => { ctx.on('approval/request', () => answer as any) })
      const outcome = await s.approval.request({ exec: s.exec('t') })
      expect(outcome.kind).toBe('unavailable')
      expect((outcome as any).reason).toMatch(/malformed answer/)
      expect(decided(s.session.path)[0].data.by).toBe('malformed')
    })
  }

  it('a denial without a reason is still a denial, with a default reason', async () => {
    s = await setup()
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => ({ kind: 'denied' }) as any) })
    expect(await s.approval.request({ exec: s.exec('t') })).toEqual({ kind: 'denied', reason: 'denied by an approval/request listener' })
  })
})

describe('order and scope', () => {
  it('takes the first answer in registration order (prepend first), as a waterfall', async () => {
    s = await setup()
    const order: string[] = []
    s.plugin('a', (ctx) => { ctx.on('approval/request', () => { order.push('a'); return { kind: 'denied', reason: 'a' } }) })
    s.plugin('p', (ctx) => { ctx.on('approval/request', (req, next) => { order.push('p'); return next() }, true) })
    expect(await s.approval.request({ exec: s.exec('t') })).toEqual({ kind: 'denied', reason: 'a' })
    expect(order).toEqual(['p', 'a'])
  })

  it('applies the cordis filter of the execution scope, and passes the scope as this', async () => {
    s = await setup()
    let self: unknown
    s.plugin('ui-a', (ctx) => { ctx.on('approval/request', function (this: unknown) { self = this; return { kind: 'denied', reason: 'a' } }) })
    s.plugin('ui-b', (ctx) => { ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' }), true) })
    const onlyA = { [Context.filter]: (owner: Context) => owner.name === 'ui-a' }
    expect(await s.approval.request({ exec: s.exec('t', {}, { scope: onlyA }) })).toEqual({ kind: 'denied', reason: 'a' })
    expect(self).toBe(onlyA)
    // twin: without the scope, b (prepended) answers first
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('approved')
  })

  it('hands the listener the execution, the reason, the session and the mode, frozen', async () => {
    s = await setup()
    let seen!: ApprovalRequestEvent
    s.plugin('ui', (ctx) => { ctx.on('approval/request', (request) => { seen = request; return { kind: 'denied', reason: 'x' } }) })
    const exec = s.exec('bash', { command: 'make' })
    await s.approval.request({ exec, reason: 'builds', sandboxMode: 'workspace-write' })
    expect(seen.exec).toBe(exec)
    expect(seen.session).toBe(s.session)
    expect(seen.reason).toBe('builds')
    expect(seen.sandboxMode).toBe('workspace-write')
    expect(Object.isFrozen(seen)).toBe(true)
    expect(seen.signal.aborted).toBe(true) // the request is over
  })

  it('drops a disposed plugin\'s listener', async () => {
    s = await setup()
    const fork = s.plugin('ui', (ctx) => { ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' })) })
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('approved')
    fork.dispose()
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('unavailable')
  })
})

describe('cancellation', () => {
  it('the caller\'s abort ends a pending request unavailable, aborts the request signal, and is logged', async () => {
    s = await setup()
    const seen = deferred<ApprovalRequestEvent>()
    let dismissed = false
    s.plugin('ui', (ctx) => {
      ctx.on('approval/request', (request) => new Promise((resolve) => {
        seen.resolve(request)
        request.signal.addEventListener('abort', () => { dismissed = true; resolve({ kind: 'approved', grant: 'once' }) })
      }) as any)
    })
    const controller = new AbortController()
    const pending = s.approval.request({ exec: s.exec('t', {}, { signal: controller.signal }) })
    await seen.promise
    controller.abort()
    const outcome = await pending
    expect(outcome).toEqual({ kind: 'unavailable', reason: 'the call was cancelled while approval was pending' })
    expect(dismissed).toBe(true)
    expect(decided(s.session.path)[0].data).toMatchObject({ by: 'abort', outcome: { kind: 'unavailable' } })
  })

  it('an already aborted call is logged and consults nobody', async () => {
    s = await setup()
    let called = 0
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
    const controller = new AbortController()
    controller.abort()
    expect((await s.approval.request({ exec: s.exec('t', {}, { signal: controller.signal }) })).kind).toBe('unavailable')
    expect(called).toBe(0)
    expect(approvalEvents(s.session.path).map((e) => e.type)).toEqual(['approval/asked', 'approval/decided'])
  })

  it('stopping the service ends a pending request unavailable', async () => {
    s = await setup()
    const seen = deferred<ApprovalRequestEvent>()
    s.plugin('ui', (ctx) => { ctx.on('approval/request', (request) => { seen.resolve(request); return new Promise(() => {}) }) })
    const approval = s.approval
    const pending = approval.request({ exec: s.exec('t') })
    const request = await seen.promise
    await s.ctx.stop()
    expect(await pending).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/stopped/) })
    expect(request.signal.aborted).toBe(true)
  })
})
