// The listener signatures of the dsh events, and a plugin's own events added
// by declaration merging.
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import type { ApprovalOutcome, BlockDecision, DecisionSource, Execution, PostExecuteInput, PreToolDecision, Session, ToolResult } from 'dsh'

declare module 'cordis' {
  interface Events {
    'type-test/ping'(exec: Execution, count: number): void
  }
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'type-test/seen': { callId: string; count: number }
  }
}

declare const ctx: Context
declare const session: Session

describe('tools/pre-execute', () => {
  it('gets the Execution and a next() resolving to a PreToolDecision', () => {
    ctx.on('tools/pre-execute', (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<Execution>()
      expectTypeOf(exec.arguments).toEqualTypeOf<Readonly<import('dsh').JsonObject>>()
      expectTypeOf(next).toEqualTypeOf<() => Promise<PreToolDecision>>()
      return next()
    })
    ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'why' }))
    ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }))
  })

  it('refuses listeners that return no decision', () => {
    // @ts-expect-error: a string is not a decision
    ctx.on('tools/pre-execute', () => 'allow')
    // @ts-expect-error: deny needs a reason
    ctx.on('tools/pre-execute', () => ({ kind: 'deny' }))
    // @ts-expect-error: no such kind
    ctx.on('tools/pre-execute', () => ({ kind: 'approve' }))
    // @ts-expect-error: the first argument is an Execution, not a string
    ctx.on('tools/pre-execute', (exec: string, next: () => Promise<PreToolDecision>) => next())
  })

  it('distinguishes the decision kinds', () => {
    expectTypeOf<PreToolDecision>().extract<{ kind: 'deny' }>().toEqualTypeOf<{ kind: 'deny'; reason: string; source?: DecisionSource }>()
    expectTypeOf<{ kind: 'allow' }>().toMatchTypeOf<PreToolDecision>()
    expectTypeOf<{ kind: 'allow' }>().not.toEqualTypeOf<PreToolDecision>()
  })
})

describe('tools/execute', () => {
  it('next takes only an optional { signal } and resolves to the ToolResult', () => {
    ctx.on('tools/execute', (exec, next) => {
      expectTypeOf(next).parameter(0).toEqualTypeOf<{ signal?: AbortSignal } | undefined>()
      expectTypeOf(next).returns.resolves.toEqualTypeOf<ToolResult>()
      return next({ signal: exec.signal })
    })
    // @ts-expect-error: a wrapper cannot hand the body other arguments
    ctx.on('tools/execute', (exec, next) => next({ arguments: {} }))
    // @ts-expect-error: nor a bare signal
    ctx.on('tools/execute', (exec, next) => next(exec.signal))
  })
})

describe('tools/post-execute', () => {
  it('gets { exec, result } and returns a ToolResult or a block', () => {
    ctx.on('tools/post-execute', async (input, next) => {
      expectTypeOf(input).toEqualTypeOf<PostExecuteInput>()
      expectTypeOf(next).returns.resolves.toEqualTypeOf<ToolResult | BlockDecision>()
      const result = await next()
      return 'kind' in result ? result : { ...result, content: [] }
    })
    ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'withheld' }))
    // @ts-expect-error: a block needs feedback
    ctx.on('tools/post-execute', () => ({ kind: 'block' }))
    // @ts-expect-error: content is a list of blocks
    ctx.on('tools/post-execute', async ({ result }) => ({ ...result, content: 'text' }))
  })
})

describe('observers and other waterfalls', () => {
  it('tools/result observes, approval/request answers with an ApprovalOutcome', () => {
    ctx.on('tools/result', (exec, result) => {
      expectTypeOf(exec).toEqualTypeOf<Execution>()
      expectTypeOf(result).toEqualTypeOf<ToolResult>()
    })
    ctx.on('approval/request', (request, next) => {
      expectTypeOf(request.exec).toEqualTypeOf<Execution>()
      expectTypeOf(next).returns.resolves.toEqualTypeOf<ApprovalOutcome>()
      return { kind: 'approved', grant: 'once' }
    })
    // @ts-expect-error: a grant is 'once' or 'session'
    ctx.on('approval/request', () => ({ kind: 'approved', grant: 'forever' }))
  })

  it('tools/idle gives the listener idle(), a boolean test, and is emitted with one', () => {
    ctx.on('tools/idle', (idle) => {
      expectTypeOf(idle).toEqualTypeOf<() => boolean>()
    })
    ctx.emit('tools/idle', () => true)
    // @ts-expect-error: idle is a function, not a flag
    ctx.emit('tools/idle', true)
  })
})

describe('a plugin\'s own events', () => {
  it('types ctx.on and ctx.emit by the merged Events', () => {
    ctx.on('type-test/ping', (exec, count) => {
      expectTypeOf(exec).toEqualTypeOf<Execution>()
      expectTypeOf(count).toEqualTypeOf<number>()
    })
    ctx.emit('type-test/ping', {} as Execution, 1)
    // @ts-expect-error: count is a number
    ctx.emit('type-test/ping', {} as Execution, 'one')
    // @ts-expect-error: an event nobody declared
    ctx.on('type-test/pong', () => {})
  })

  it('types session.append by the merged SessionEvents', () => {
    expectTypeOf(session.append('type-test/seen', { callId: 'c', count: 1 })).resolves.toHaveProperty('data').toEqualTypeOf<{ callId: string; count: number }>()
    session.append('tool/call', { callId: 'c', name: 'bash' })
    // @ts-expect-error: count is missing
    session.append('type-test/seen', { callId: 'c' })
    // @ts-expect-error: an undeclared session event type
    session.append('type-test/unknown', {})
  })
})
