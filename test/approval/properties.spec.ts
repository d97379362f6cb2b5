import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { ApprovalRequestEvent } from '@dsh/approval'
import type { ApprovalOutcome } from '@dsh/tools'
import { approvalEvents, setup } from './helpers.js'

const TIMEOUT = 30

type Behaviour =
  | 'pass' | 'approve-once' | 'approve-session' | 'deny' | 'unavailable'
  | 'hang' | 'approve-late' | 'throw' | 'reject' | 'malformed' | 'wrong-mode'
  | 'next-twice-swallow' | 'next-then-approve'

const behaviours: Behaviour[] = [
  'pass', 'approve-once', 'approve-session', 'deny', 'unavailable', 'hang', 'approve-late',
  'throw', 'reject', 'malformed', 'wrong-mode', 'next-twice-swallow', 'next-then-approve',
]

type Kind = ApprovalOutcome['kind']

/**
 * The outcome kind the chain from `index` on must produce, or 'broken' when a
 * listener misbehaved in a way that poisons the whole request.
 */
function model(chain: Behaviour[], index = 0): Kind | 'hang' | 'throw' | 'broken' {
  if (index === chain.length) return 'unavailable'
  const rest = () => model(chain, index + 1)
  switch (chain[index]) {
    case 'pass': return rest()
    case 'approve-once':
    case 'approve-session': return 'approved'
    case 'deny': return 'denied'
    case 'unavailable':
    case 'malformed':
    case 'wrong-mode': return 'unavailable'
    case 'hang':
    case 'approve-late': return 'hang'
    case 'throw':
    case 'reject': return 'throw'
    case 'next-twice-swallow': {
      const r = rest()
      return r === 'hang' ? 'hang' : 'broken'
    }
    case 'next-then-approve': {
      const r = rest()
      return r === 'hang' || r === 'throw' || r === 'broken' ? r : 'approved'
    }
  }
}

function expected(chain: Behaviour[], policy: 'ask' | 'never'): Kind {
  if (policy === 'never') return 'denied'
  const m = model(chain)
  return m === 'hang' || m === 'throw' || m === 'broken' ? 'unavailable' : m
}

describe('approval properties', () => {
  it('no combination of listener behaviours yields approved unless a listener approved in time under ask', async () => {
    const s = await setup({ timeoutMs: TIMEOUT })
    let n = 0
    try {
      await fc.assert(fc.asyncProperty(
        fc.array(fc.constantFrom(...behaviours), { maxLength: 4 }),
        fc.constantFrom('ask' as const, 'never' as const),
        fc.boolean(),
        async (chain, policy, explicitMode) => {
          const approvedInTime: boolean[] = []
          let calls = 0
          const fork = s.plugin('chain', (ctx) => {
            chain.forEach((behaviour) => {
              ctx.on('approval/request', async (request: ApprovalRequestEvent, next): Promise<any> => {
                calls++
                const approve = (grant: 'once' | 'session') => {
                  // recorded only when the answer arrives before the request is over
                  approvedInTime.push(!request.signal.aborted)
                  return { kind: 'approved', grant }
                }
                switch (behaviour) {
                  case 'pass': return next()
                  case 'approve-once': return approve('once')
                  case 'approve-session': return approve('session')
                  case 'deny': return { kind: 'denied', reason: 'no' }
                  case 'unavailable': return { kind: 'unavailable', reason: 'away' }
                  case 'hang': return new Promise(() => {})
                  case 'approve-late':
                    await new Promise((resolve) => setTimeout(resolve, TIMEOUT * 5))
                    return approve('once')
                  case 'throw': throw new Error('boom')
                  case 'reject': return Promise.reject(new Error('boom'))
                  case 'malformed': return { kind: 'approved' }
                  case 'wrong-mode': return { kind: 'approved', grant: 'once', sandboxMode: 'danger-full-access' }
                  case 'next-twice-swallow': {
                    const first = await next()
                    await next().catch(() => {})
                    return first
                  }
                  case 'next-then-approve':
                    await next()
                    return approve('once')
                }
              })
            })
          })
          try {
            if (policy === 'never') await s.approval.setPreset(s.session, 'full-access')
            else await s.approval.setPreset(s.session, 'read-only')
            const before = approvalEvents(s.session.path).length
            // unique arguments: no grant from an earlier run can answer
            const outcome = await s.approval.request({
              exec: s.exec('t', { run: ++n }),
              ...(explicitMode ? { sandboxMode: 'workspace-write' as const } : {}),
            })
            expect(outcome.kind).toBe(expected(chain, policy))
            if (outcome.kind === 'approved') {
              expect(policy).toBe('ask')
              expect(approvedInTime).toContain(true)
              if (explicitMode) expect(outcome.sandboxMode).toBe('workspace-write')
              else expect(outcome.sandboxMode).toBeUndefined()
            }
            if (policy === 'never') expect(calls).toBe(0)
            // exactly one asked and one decided, in that order, agreeing with the outcome
            const events = approvalEvents(s.session.path).slice(before).filter((e) => e.type === 'approval/asked' || e.type === 'approval/decided')
            expect(events.map((e) => e.type)).toEqual(['approval/asked', 'approval/decided'])
            expect(events[1].data.outcome).toEqual(outcome)
          } finally {
            fork.dispose()
          }
        },
      ), { numRuns: 150 })
    } finally {
      await s.cleanup()
    }
  })
})
