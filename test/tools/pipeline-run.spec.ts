import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { deferred, eventsOf, plugin } from './helpers.js'

let k: TestKernel
beforeEach(async () => { k = await createTestKernel() })
afterEach(() => k.cleanup())

describe('gate 3: tools/execute', () => {
  it('fuses a wrapper signal with the caller\'s, so the body still hears the caller', async () => {
    let bodySignal!: AbortSignal
    const started = deferred()
    const finished = deferred()
    plugin(k, 'p', (ctx) => {
      // a wrapper trying to shed the caller's cancellation
      ctx.on('tools/execute', (exec, next) => next({ signal: new AbortController().signal }))
      ctx.tools.register(testTool('wait', async (args, call) => {
        bodySignal = call.signal
        started.resolve()
        await new Promise((resolve) => call.signal.addEventListener('abort', resolve))
        finished.resolve()
        return 'late'
      }))
    })
    const caller = new AbortController()
    const running = k.call('wait', {}, { signal: caller.signal })
    await started.promise
    caller.abort()
    const result = await running
    expect(bodySignal.aborted).toBe(true)
    expect(result.error?.code).toBe('ABORTED')
  })

  it('awaits a started body after the caller aborts, never abandoning it', async () => {
    const order: string[] = []
    const started = deferred()
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('slow', async (args, call) => {
        started.resolve()
        await new Promise((resolve) => call.signal.addEventListener('abort', resolve))
        await new Promise((resolve) => setTimeout(resolve, 30))
        order.push('body done')
        return 'x'
      }))
    })
    const caller = new AbortController()
    const running = k.call('slow', {}, { signal: caller.signal }).then((r) => { order.push('result'); return r })
    await started.promise
    caller.abort()
    expect((await running).error?.code).toBe('ABORTED')
    expect(order).toEqual(['body done', 'result'])
  })

  it('reports TIMEOUT when a wrapper deadline fires', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.on('tools/execute', (exec, next) => {
        const controller = new AbortController()
        setTimeout(() => controller.abort(new KernelError('TIMEOUT', `${exec.name} exceeded its 10 ms limit`)), 10)
        return next({ signal: controller.signal })
      })
      ctx.tools.register(testTool('hang', (args, call) => new Promise((resolve) => call.signal.addEventListener('abort', () => resolve('x')))))
    })
    const result = await k.call('hang', {})
    expect(result.error).toEqual({ code: 'TIMEOUT', message: 'hang exceeded its 10 ms limit', source: { kind: 'body', plugin: 'p', detail: 'a deadline' } })
  })

  it('a body refused by a policy (KernelError DENIED, as web_fetch throws for a host) is DENIED, not TOOL_FAILED', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('refuses', () => { throw new KernelError('DENIED', 'the host is not allowed') }))
    })
    expect((await k.call('refuses', {})).error).toEqual({ code: 'DENIED', message: 'refuses: the host is not allowed', source: { kind: 'body', plugin: 'p' } })
  })

  it('turns a body throw into TOOL_FAILED, and a malformed output too', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('boom', () => { throw new Error('kaboom') }))
      ctx.tools.register(testTool('weird', () => 42 as any))
      ctx.tools.register(testTool('badblock', () => [{ type: 'video' }] as any))
    })
    expect((await k.call('boom', {})).error).toEqual({ code: 'TOOL_FAILED', message: 'boom failed: kaboom', source: { kind: 'body', plugin: 'p' } })
    expect((await k.call('weird', {})).error?.code).toBe('TOOL_FAILED')
    expect((await k.call('badblock', {})).error?.message).toMatch(/unknown type "video"/)
  })

  it('normalises outputs: string, blocks, content and value', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('s', () => 'text'))
      ctx.tools.register(testTool('v', () => ({ value: { n: 1 } })))
      ctx.tools.register(testTool('cv', () => ({ content: 'c', value: [1] })))
    })
    expect(await k.call('s', {})).toMatchObject({ isError: false, content: [{ type: 'text', text: 'text' }] })
    expect(await k.call('v', {})).toMatchObject({ value: { n: 1 }, content: [{ type: 'text', text: '{"n":1}' }] })
    expect(await k.call('cv', {})).toMatchObject({ value: [1], content: [{ type: 'text', text: 'c' }] })
  })

  it('fails closed when a wrapper skips next, throws, or calls next twice', async () => {
    let ran = 0
    plugin(k, 't', (ctx) => { ctx.tools.register(testTool('t', () => { ran++; return 'ok' })) })
    const skip = plugin(k, 'skip', (ctx) => { ctx.on('tools/execute', async () => undefined) })
    expect((await k.call('t', {})).error?.message).toMatch(/did not call next/)
    skip.dispose()
    const throws = plugin(k, 'throws', (ctx) => { ctx.on('tools/execute', () => { throw new Error('w') }) })
    expect((await k.call('t', {})).error?.message).toMatch(/failed before the tool ran: w/)
    throws.dispose()
    expect(ran).toBe(0)
    const after = plugin(k, 'after', (ctx) => { ctx.on('tools/execute', async (exec, next) => { await next(); throw new Error('late') }) })
    expect((await k.call('t', {})).error?.message).toMatch(/after the tool ran: late/)
    after.dispose()
    plugin(k, 'twice', (ctx) => { ctx.on('tools/execute', async (exec, next) => { await next(); return next() }) })
    const result = await k.call('t', {})
    expect(result.isError).toBe(true)
    // the second next() rejects: the body ran once for 'after' and once for 'twice', never twice in a call
    expect(ran).toBe(2)
  })

  it('a wrapper holding on to next() cannot start the body after the call settled', async () => {
    let ran = 0
    let late: Promise<unknown> | undefined
    plugin(k, 't', (ctx) => {
      ctx.tools.register(testTool('t', () => { ran++; return 'ok' }))
      ctx.on('tools/execute', (exec, next) => { late = new Promise((resolve) => setTimeout(() => resolve(next().catch((e) => e)), 10)); return undefined })
    })
    expect((await k.call('t', {})).error?.message).toMatch(/did not call next/)
    expect(await late).toMatchObject({ code: 'TOOL_FAILED' })
    expect(ran).toBe(0)
  })

  it('completes a call whose plugin is disposed while the body runs', async () => {
    const gate = deferred()
    const inBody = deferred()
    const fork = plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('t', async () => { inBody.resolve(); await gate.promise; return 'done' }))
      ctx.on('tools/post-execute', ({ result }, next) => next())
    })
    const running = k.call('t', {})
    await inBody.promise
    fork.dispose()
    gate.resolve()
    const result = await running
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(eventsOf(k, result.callId).map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect((await k.call('t', {})).error?.code).toBe('UNKNOWN_TOOL')
  })
})

describe('gate 4: tools/post-execute', () => {
  beforeEach(() => {
    plugin(k, 'tools', (ctx) => {
      ctx.tools.register(testTool('ok', () => ({ content: 'secret', value: 1 })))
      ctx.tools.register(testTool('fail', () => { throw new Error('bad') }))
    })
  })

  it('replaces content and value', async () => {
    plugin(k, 'redact', (ctx) => {
      ctx.on('tools/post-execute', async (input, next) => {
        const result = await next() as any
        return { ...result, content: [{ type: 'text', text: 'redacted' }], value: 2 }
      })
    })
    expect(await k.call('ok', {})).toMatchObject({ isError: false, content: [{ type: 'text', text: 'redacted' }], value: 2 })
  })

  it('blocks with feedback', async () => {
    plugin(k, 'block', (ctx) => { ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'no secrets' })) })
    expect((await k.call('ok', {})).error).toEqual({ code: 'BLOCKED', message: 'no secrets', source: { kind: 'post-execute', plugin: 'block' } })
  })

  it('can never turn an error into a success', async () => {
    plugin(k, 'flip', (ctx) => {
      ctx.on('tools/post-execute', ({ result }) => ({ ...result, isError: false, error: undefined, content: [{ type: 'text', text: 'all good' }] }))
    })
    const result = await k.call('fail', {})
    expect(result.isError).toBe(true)
    expect(result.error?.code).toBe('TOOL_FAILED')
  })

  it('may reword an error message (to redact it), never its code or status', async () => {
    plugin(k, 'redact', (ctx) => {
      ctx.on('tools/post-execute', ({ result }) => ({ ...result, isError: false, content: [{ type: 'text', text: 'failed: [redacted]' }], error: { code: 'BLOCKED', message: 'failed: [redacted]' } }))
    })
    const result = await k.call('fail', {})
    expect(result.isError).toBe(true)
    // the source stays the body's: the listener reworded the failure, it did not decide it
    expect(result.error).toMatchObject({ code: 'TOOL_FAILED', message: 'failed: [redacted]', source: { kind: 'body' } })
    expect(JSON.stringify(result)).not.toContain('bad')
  })

  it('withholds the result when a listener throws or returns garbage', async () => {
    const fork = plugin(k, 'throws', (ctx) => { ctx.on('tools/post-execute', () => { throw new Error('filter broke') }) })
    const thrown = await k.call('ok', {})
    expect(thrown.error?.code).toBe('BLOCKED')
    expect(JSON.stringify(thrown)).not.toContain('secret')
    fork.dispose()
    plugin(k, 'garbage', (ctx) => { ctx.on('tools/post-execute', () => ({ nope: true } as any)) })
    const garbage = await k.call('ok', {})
    expect(garbage.error?.code).toBe('BLOCKED')
    expect(JSON.stringify(garbage)).not.toContain('secret')
  })

  it('is monotone: an outer listener cannot undo an inner block or throw', async () => {
    plugin(k, 'outer', (ctx) => {
      ctx.on('tools/post-execute', async (input, next) => { try { await next() } catch {} return input.result })
    })
    const inner = plugin(k, 'inner-throws', (ctx) => { ctx.on('tools/post-execute', () => { throw new Error('redactor broke') }) })
    const thrown = await k.call('ok', {})
    expect(thrown.error?.code).toBe('BLOCKED')
    expect(JSON.stringify(thrown)).not.toContain('secret')
    inner.dispose()
    plugin(k, 'inner-blocks', (ctx) => { ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'no' })) })
    expect((await k.call('ok', {})).error).toEqual({ code: 'BLOCKED', message: 'no', source: { kind: 'post-execute', plugin: 'inner-blocks' } })
  })

  it('keeps the call identity whatever a listener returns', async () => {
    plugin(k, 'rename', (ctx) => { ctx.on('tools/post-execute', ({ result }) => ({ ...result, callId: 'other', name: 'other' })) })
    const result = await k.call('ok', {})
    expect(result.name).toBe('ok')
    expect(result.callId).toMatch(/^call-/)
  })
})

describe('finalize', () => {
  it('applies finalizeContent exactly once to every outcome, including denials', async () => {
    let count = 0
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('fin', () => 'raw', {
        finalizeContent: (exec, result) => { count++; return [{ type: 'text', text: `final:${result.error?.code ?? 'ok'}` }] },
      }))
    })
    expect((await k.call('fin', {})).content).toEqual([{ type: 'text', text: 'final:ok' }])
    const guard = plugin(k, 'g', (ctx) => { ctx.tools.guard(() => 'no') })
    expect((await k.call('fin', {})).content).toEqual([{ type: 'text', text: 'final:DENIED' }])
    guard.dispose()
    const aborted = new AbortController()
    aborted.abort()
    expect((await k.call('fin', {}, { signal: aborted.signal })).content).toEqual([{ type: 'text', text: 'final:ABORTED_BEFORE_DISPATCH' }])
    expect(count).toBe(3)
  })

  it('does not leak content when finalizeContent throws', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('fin', () => 'secret', { finalizeContent: () => { throw new Error('x') } }))
    })
    const result = await k.call('fin', {})
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(JSON.stringify(result)).not.toContain('secret')
  })

  it('freezes the result and logs it once; throwing observers break nothing', async () => {
    let observed = 0
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('t', () => 'x'))
      ctx.on('tools/result', () => { observed++; throw new Error('observer') })
      ctx.on('tools/result', () => { observed++ })
      ctx.on('tools/result', async () => { observed++; throw new Error('async observer') })
    })
    const result = await k.call('t', {})
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.content[0])).toBe(true)
    expect(observed).toBe(3)
    const events = eventsOf(k, result.callId)
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(events[1].data).toMatchObject({ callId: result.callId, name: 't', isError: false })
  })

  it('freezes the whole result also after a post-execute listener saw it, and with a finalizer', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('t', () => ({ content: 'x', value: { deep: { list: [1] } } })))
      ctx.tools.register({ ...testTool('f', () => 'y'), finalizeContent: () => [{ type: 'text', text: 'rewritten' }] })
      ctx.on('tools/post-execute', (input, next) => next())
    })
    for (const name of ['t', 'f']) {
      const result = await k.call(name, {})
      expect(result.isError).toBe(false)
      expect(Object.isFrozen(result.content)).toBe(true)
      expect(result.content.every((block) => Object.isFrozen(block))).toBe(true)
    }
    const withValue = await k.call('t', {})
    expect(Object.isFrozen((withValue.value as any).deep.list)).toBe(true)
    expect(() => { (withValue.content as any).push({ type: 'text', text: 'smuggled' }) }).toThrow(TypeError)
  })

  it('a finalizer that returns malformed blocks fails the call instead of passing them on', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register({ ...testTool('f', () => 'y'), finalizeContent: () => [{ type: 'text', text: 42 }] as any })
    })
    const result = await k.call('f', {})
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(result.error?.message).toMatch(/content\[0\]\.text must be a string/)
  })

  it('logs the result line even when a body recorded a fact that is not JSON', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('t', (args, call) => { call.record({ size: 10n } as any); return 'x' }))
    })
    const result = await k.call('t', {})
    expect(result.isError).toBe(false)
    const logged = eventsOf(k, result.callId)[1]
    expect(logged.type).toBe('tool/result')
    expect(logged.data).toMatchObject({ isError: false, unloggable: expect.stringMatching(/recorded facts/) })
  })

  it('a session closed while the body ran turns its success into TOOL_FAILED: a result missing from the log is not handed out', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('closer', (args, call) => { call.session.close(); return 'done' }))
    })
    const result = await k.call('closer', {})
    expect(result.error?.code).toBe('TOOL_FAILED')
    expect(result.error?.message).toMatch(/could not be written to the session log.*closed/)
    expect(JSON.stringify(result)).not.toContain('"done"')
  })

  it('records audit facts a body adds', async () => {
    plugin(k, 'p', (ctx) => {
      ctx.tools.register(testTool('t', (args, call) => { call.record({ sandbox: { backend: 'bwrap', enforcement: 'full' } }); return 'x' }))
    })
    const result = await k.call('t', {})
    expect(eventsOf(k, result.callId)[1].data).toMatchObject({ sandbox: { backend: 'bwrap', enforcement: 'full' } })
  })
})

describe('the mode collapse point', () => {
  beforeEach(() => {
    // run_code is the kernel's own transport (the code-mode plugin)
    plugin(k, 'tools', (ctx) => { ctx.tools.register(testTool('native', () => 'native ran')) })
  })

  it('under code, a model-direct native call is UNKNOWN_TOOL before any listener, guard or body', async () => {
    const seen: string[] = []
    plugin(k, 'spy', (ctx) => {
      ctx.on('tools/pre-execute', (exec, next) => { seen.push(`pre:${exec.name}`); return next() })
      ctx.tools.guard((exec) => { seen.push(`guard:${exec.name}`) })
      ctx.on('tools/execute', (exec, next) => { seen.push(`exec:${exec.name}`); return next() })
    })
    k.ctx.tools.setMode('code')
    expect((await k.call('native', {})).error?.code).toBe('UNKNOWN_TOOL')
    expect(seen).toEqual([])
    expect((await k.call('run_code', { code: 'return 1' })).value).toBe(1)
    const token = k.ctx.tools.issueParentToken('parent-1')
    expect((await k.call('native', {}, { parent: token })).content).toEqual([{ type: 'text', text: 'native ran' }])
    expect(seen).toEqual(['pre:run_code', 'guard:run_code', 'exec:run_code', 'pre:native', 'guard:native', 'exec:native'])
  })

  it('a collapsed call still reports INVALID_ARGS and ABORTED_BEFORE_DISPATCH', async () => {
    k.ctx.tools.setMode('code')
    expect((await k.call('native', { x: 1n })).error?.code).toBe('INVALID_ARGS')
    const controller = new AbortController()
    controller.abort()
    expect((await k.call('native', {}, { signal: controller.signal })).error?.code).toBe('ABORTED_BEFORE_DISPATCH')
  })

  it('native and both modes resolve native names directly', async () => {
    for (const mode of ['native', 'both'] as const) {
      k.ctx.tools.setMode(mode)
      expect((await k.call('native', {})).isError).toBe(false)
    }
  })
})
