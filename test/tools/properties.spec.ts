/**
 * Property tests over random compositions of listeners, guards, approvers and
 * wrappers: no denial ever ends as an allow, no ask (gate 1's or a guard's)
 * ends as one without an approval, and the result says who decided; every
 * call gets exactly one result and one `tool/result`; the caller's
 * cancellation always reaches the body.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Context } from 'cordis'
import { createTestKernel, testTool } from 'dsh/testing'
import { eventsOf } from './helpers.js'

type Pre = 'pass' | 'allow-short' | 'deny' | 'deny-after-next' | 'ask' | 'throw' | 'garbage' | 'flip-after-next' | 'next-twice'
type GuardKind = 'pass' | 'deny' | 'throw' | 'async-deny' | 'ask' | 'async-ask'
type Approver = 'none' | 'approve' | 'deny' | 'throw' | 'malformed'
type Wrap = 'pass' | 'new-signal' | 'throw-before' | 'skip' | 'throw-after'
type Post = 'pass' | 'replace' | 'block' | 'throw' | 'flip-error'

const pre = fc.constantFrom<Pre>('pass', 'allow-short', 'deny', 'deny-after-next', 'ask', 'throw', 'garbage', 'flip-after-next', 'next-twice')
const guard = fc.constantFrom<GuardKind>('pass', 'deny', 'throw', 'async-deny', 'ask', 'async-ask')
const approver = fc.constantFrom<Approver>('none', 'approve', 'deny', 'throw', 'malformed')
const wrap = fc.constantFrom<Wrap>('pass', 'new-signal', 'throw-before', 'skip', 'throw-after')
const post = fc.constantFrom<Post>('pass', 'replace', 'block', 'throw', 'flip-error')

function preListener(kind: Pre) {
  return async (exec: any, next: () => Promise<any>) => {
    switch (kind) {
      case 'pass': return next()
      case 'allow-short': return { kind: 'allow' }
      case 'deny': return { kind: 'deny', reason: 'listener deny' }
      case 'deny-after-next': await next(); return { kind: 'deny', reason: 'late deny' }
      case 'ask': return { kind: 'ask', reason: 'ask' }
      case 'throw': throw new Error('pre throw')
      case 'garbage': return 42
      case 'flip-after-next': await next().catch(() => {}); return { kind: 'allow' }
      case 'next-twice': await next(); return next()
    }
  }
}

/** What the pre-execute chain must decide: the strictest decision among the listeners that ran. */
function expectedPre(kinds: Pre[]): 'allow' | 'ask' | 'deny' {
  let strictest: 'allow' | 'deny' = 'allow'
  for (const kind of kinds) {
    if (kind === 'pass') continue
    if (kind === 'allow-short') return strictest
    if (kind === 'flip-after-next') continue
    if (kind === 'deny-after-next') { strictest = 'deny'; continue }
    // answers without next(): the listeners after it never run
    if (kind === 'ask') return strictest === 'deny' ? 'deny' : 'ask'
    // deny, throw, garbage, next-twice all refuse
    return 'deny'
  }
  return strictest
}

/** The outcome the whole call must have before its body: deny > ask > allow, and only an approval passes an ask. */
function expectedGates(pres: Pre[], guards: GuardKind[], answer: Approver): { pass: true } | { pass: false; codes: string[]; kind: string } {
  const pre = expectedPre(pres)
  if (pre === 'deny') return { pass: false, codes: ['DENIED'], kind: 'pre-execute' }
  if (guards.some((g) => g === 'deny' || g === 'throw' || g === 'async-deny')) return { pass: false, codes: ['DENIED'], kind: 'guard' }
  if (pre !== 'ask' && !guards.some((g) => g === 'ask' || g === 'async-ask')) return { pass: true }
  if (answer === 'approve') return { pass: true }
  return { pass: false, codes: answer === 'deny' ? ['DENIED'] : ['APPROVAL_UNAVAILABLE'], kind: 'approval' }
}

describe('pipeline properties', () => {
  it('no denial ever ends as an allow, and every call has exactly one result', async () => {
    const k = await createTestKernel()
    try {
      let bodyRuns = 0
      k.ctx.plugin({ name: 'tool', inject: ['tools'], apply: (ctx: Context) => {
        ctx.tools.register(testTool('t', () => { bodyRuns++; return 'body' }))
      } })
      await fc.assert(fc.asyncProperty(
        fc.array(pre, { maxLength: 4 }), fc.array(guard, { maxLength: 3 }), fc.array(wrap, { maxLength: 3 }), fc.array(post, { maxLength: 3 }), approver,
        fc.boolean(),
        async (pres, guards, wraps, posts, answer, allowFirst) => {
          let asked = 0
          const fork = k.ctx.plugin({ name: 'composition', inject: ['tools'], apply: (ctx: Context) => {
            for (const kind of pres) ctx.on('tools/pre-execute', preListener(kind))
            // another plugin's listener first in line that allows without next(): it silences gate 1, never a guard
            if (allowFirst) ctx.on('tools/pre-execute', () => ({ kind: 'allow' }), true)
            for (const kind of guards) {
              ctx.tools.guard((exec) => {
                if (kind === 'deny') return 'guard deny'
                if (kind === 'throw') throw new Error('guard throw')
                if (kind === 'async-deny') return Promise.resolve('async guard deny') as any
                if (kind === 'ask') return { ask: 'guard ask' }
                if (kind === 'async-ask') return Promise.resolve({ ask: 'async guard ask' }) as any
              })
            }
            if (answer !== 'none') {
              ctx.on('approval/request', (): any => {
                asked++
                if (answer === 'approve') return { kind: 'approved', grant: 'once' }
                if (answer === 'deny') return { kind: 'denied', reason: 'approver deny' }
                if (answer === 'throw') throw new Error('approver throw')
                return { kind: 'approved' }
              })
            }
            for (const kind of wraps) {
              ctx.on('tools/execute', async (exec, next) => {
                if (kind === 'throw-before') throw new Error('wrap throw')
                if (kind === 'skip') return
                const result = await next(kind === 'new-signal' ? { signal: new AbortController().signal } : undefined)
                if (kind === 'throw-after') throw new Error('wrap late throw')
                return result
              })
            }
            for (const kind of posts) {
              ctx.on('tools/post-execute', async (input, next) => {
                if (kind === 'block') return { kind: 'block', feedback: 'post block' }
                if (kind === 'throw') throw new Error('post throw')
                const result = await next() as any
                if (kind === 'replace') return { ...result, content: [{ type: 'text', text: 'replaced' }] }
                if (kind === 'flip-error') return { ...result, isError: false, error: undefined, content: [{ type: 'text', text: 'flipped' }] }
                return result
              })
            }
          } })
          try {
            const before = bodyRuns
            const result = await k.call('t', {})
            const gates = expectedGates(allowFirst ? [] : pres, guards, answer)
            if (!gates.pass) {
              expect(result.isError).toBe(true)
              expect(gates.codes).toContain(result.error?.code)
              // who decided: gate 1's listener, a guard, or the approval
              expect(result.error?.source?.kind).toBe(gates.kind)
              expect(result.error?.source?.plugin).toBe('composition')
              expect(bodyRuns).toBe(before)
              // nobody is asked about a call a listener or guard refuses
              if (gates.kind !== 'approval') expect(asked).toBe(0)
            } else if (wraps.some((w) => w !== 'pass' && w !== 'new-signal')) {
              expect(result.isError).toBe(true)
            } else if (posts.some((p) => p === 'block' || p === 'throw')) {
              expect(result.error?.code).toBe('BLOCKED')
            } else {
              expect(result.isError).toBe(false)
            }
            expect(bodyRuns - before).toBeLessThanOrEqual(1)
            const events = eventsOf(k, result.callId)
            expect(events.map((e) => e.type).filter((type) => type.startsWith('tool/'))).toEqual(['tool/call', 'tool/result'])
          } finally {
            fork.dispose()
          }
        },
      ), { numRuns: 300 })
    } finally {
      await k.cleanup()
    }
  })

  it('the caller\'s cancellation always reaches the body, whatever the wrappers pass', async () => {
    const k = await createTestKernel()
    try {
      await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom('pass', 'new-signal', 'aborted-never', 'same'), { maxLength: 4 }), async (wraps) => {
        let heard = false
        let started!: () => void
        const startedP = new Promise<void>((r) => (started = r))
        const fork = k.ctx.plugin({ name: 'w', inject: ['tools'], apply: (ctx: Context) => {
          ctx.tools.register(testTool('wait', async (args, call) => {
            started()
            await new Promise<void>((resolve) => {
              if (call.signal.aborted) return resolve()
              call.signal.addEventListener('abort', () => resolve())
            })
            heard = true
            return 'x'
          }))
          for (const kind of wraps) {
            ctx.on('tools/execute', (exec, next) => {
              if (kind === 'new-signal') return next({ signal: new AbortController().signal })
              if (kind === 'same') return next({ signal: exec.signal })
              if (kind === 'aborted-never') return next({ signal: AbortSignal.timeout(1e9) })
              return next()
            })
          }
        } })
        try {
          const caller = new AbortController()
          const running = k.call('wait', {}, { signal: caller.signal })
          await startedP
          caller.abort()
          const result = await running
          expect(heard).toBe(true)
          expect(result.error?.code).toBe('ABORTED')
        } finally {
          fork.dispose()
        }
      }), { numRuns: 100 })
    } finally {
      await k.cleanup()
    }
  })
})
