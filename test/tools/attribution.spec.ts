/**
 * `ToolResult.error.source`: every kind of failure says who decided it — the
 * step, the plugin that owns the listener, guard or tool (found by the
 * pipeline, never claimed), and the rule, hook or guard — in the result and
 * in the `tool/result` line of the session log.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'
import type { ErrorSource, ToolResult } from '@dsh/tools'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { eventsOf } from './helpers.js'

let k: TestKernel
beforeEach(async () => {
  k = await createTestKernel()
  k.ctx.plugin({ name: 'tools', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(testTool('ok'))
    ctx.tools.register(testTool('boom', () => { throw new Error('kaboom') }))
    ctx.tools.register(testTool('unconfined', () => { throw new KernelError('SANDBOX_UNAVAILABLE', 'no backend') }))
    ctx.tools.register(testTool('writes', () => 'wrote', { requiredMode: 'workspace-write' }))
    ctx.tools.register({ ...testTool('typed'), parameters: { type: 'object', properties: { n: { type: 'number' } } } })
  } })
})
afterEach(async () => { await k?.cleanup() })

/** The result's source, and that the session log holds the same. */
function sourceOf(result: ToolResult): ErrorSource | undefined {
  const logged = eventsOf(k, result.callId).find((e) => e.type === 'tool/result')
  expect((logged?.data as any)?.error?.source).toEqual(result.error?.source)
  return result.error?.source
}

const inPlugin = (name: string, apply: (ctx: Context) => void) => k.ctx.plugin({ name, inject: ['tools'], apply })

describe('who decided a failure', () => {
  it('prepare: an unknown tool, arguments the schema refuses (the tool\'s plugin and its schema)', async () => {
    expect(sourceOf(await k.call('nope', {}))).toEqual({ kind: 'prepare' })
    expect(sourceOf(await k.call('typed', { n: 'one' }))).toEqual({ kind: 'prepare', plugin: 'tools', detail: 'the parameters schema' })
  })

  it('pre-execute: the plugin whose listener denied or threw — the inner one, not an outer one that handed its answer on', async () => {
    inPlugin('outer', (ctx) => { ctx.on('tools/pre-execute', async (_exec, next) => next()) })
    const inner = inPlugin('policy', (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' })) })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'pre-execute', plugin: 'policy' })
    inner.dispose()
    inPlugin('broken', (ctx) => { ctx.on('tools/pre-execute', () => { throw new Error('bug') }) })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'pre-execute', plugin: 'broken' })
  })

  it('a listener may name a rule, a hook or a mode, never a guard or an approval: the plugin is always the pipeline\'s finding', async () => {
    const fork = inPlugin('rules', (ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'rule says no', source: { kind: 'rule', detail: 'Bash(git push:*)' } }))
    })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'rule', plugin: 'rules', detail: 'Bash(git push:*)' })
    fork.dispose()
    inPlugin('liar', (ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'x', source: { kind: 'guard', detail: 'y', plugin: 'someone-else' } as any }))
    })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'pre-execute', plugin: 'liar', detail: 'y' })
  })

  it('guard: the owner, and the guard by its function\'s name or its place among its plugin\'s guards (a throwing one too)', async () => {
    const named = inPlugin('locks', (ctx) => { ctx.tools.guard(function noLockfiles() { return 'not allowed' }) })
    const result = await k.call('ok', {})
    expect(result.error).toMatchObject({ code: 'DENIED', message: 'not allowed' })
    expect(sourceOf(result)).toEqual({ kind: 'guard', plugin: 'locks', detail: 'noLockfiles' })
    named.dispose()
    inPlugin('two', (ctx) => {
      ctx.tools.guard(() => undefined)
      ctx.tools.guard(() => { throw new Error('bad guard') })
    })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'guard', plugin: 'two', detail: '#2' })
  })

  it('approval: what asked, and its plugin', async () => {
    inPlugin('asker', (ctx) => { ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'sure?', source: { kind: 'hook', detail: './confirm.sh' } })) })
    const result = await k.call('ok', {})
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(sourceOf(result)).toEqual({ kind: 'approval', plugin: 'asker', detail: 'hook ./confirm.sh of plugin asker' })
  })

  it('mode: a tool that needs a sandbox mode above the call\'s', async () => {
    const result = await k.call('writes', {})
    expect(result.error?.code).toBe('DENIED')
    expect(sourceOf(result)).toEqual({ kind: 'mode', plugin: 'tools', detail: 'writes needs workspace-write, the call runs under read-only' })
  })

  it('body and sandbox: the tool\'s plugin', async () => {
    expect(sourceOf(await k.call('boom', {}))).toEqual({ kind: 'body', plugin: 'tools' })
    expect(sourceOf(await k.call('unconfined', {}))).toEqual({ kind: 'sandbox', plugin: 'tools' })
  })

  it('post-execute: the plugin whose listener blocked or threw, or named its hook', async () => {
    const fork = inPlugin('redactor', (ctx) => { ctx.on('tools/post-execute', () => ({ kind: 'block', feedback: 'secret', source: { kind: 'hook', detail: 'scan.sh' } })) })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'hook', plugin: 'redactor', detail: 'scan.sh' })
    fork.dispose()
    inPlugin('pass', (ctx) => { ctx.on('tools/post-execute', (_input, next) => next()) })
    inPlugin('broken', (ctx) => { ctx.on('tools/post-execute', () => { throw new Error('bug') }) })
    expect(sourceOf(await k.call('ok', {}))).toEqual({ kind: 'post-execute', plugin: 'broken' })
  })

  it('a success carries no source, and the result is frozen to the source', async () => {
    const ok = await k.call('ok', {})
    expect(ok.error).toBeUndefined()
    const failed = await k.call('boom', {})
    expect(Object.isFrozen(failed.error!.source)).toBe(true)
  })
})
