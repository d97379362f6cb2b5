/**
 * `answerApprovalsOverAcp` against the real ACP SDK (agent and client apps
 * over an in-memory stream pair): allow once, allow always (the second
 * identical call is not asked, other arguments are), reject, the client
 * cancelling, a client that fails, and the kernel withdrawing a question
 * when its approval deadline fires. Refused calls change nothing on disk.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import type { KernelOptions } from 'dsh'
import { answerApprovalsOverAcp, permissionRequest, readPermission } from '@dsh/acp'
import type { ApprovalRequestEvent } from 'dsh'
import { cancelled, overAcp, select, type Answer } from './acp-pair.js'

let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
})

/** A kernel whose write and guarded calls are asked about (workspace-write, so an approved write really writes). */
async function askingKernel(options: KernelOptions = {}): Promise<TestKernel> {
  const k = await createTestKernel({ sandbox: { mode: 'workspace-write' }, plugins: { 'workspace-tools': {} }, ...options })
  k.ctx.plugin({
    name: 'ask-writes',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register(testTool('guarded', () => 'ran'))
      ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'write' || exec.name === 'guarded' ? { kind: 'ask', reason: 'writes need a yes' } : next()))
    },
  })
  return k
}

const events = (k: TestKernel, type: string) => k.session.events().filter((e) => e.type === type).map((e) => e.data as any)

describe('answerApprovalsOverAcp', () => {
  it('allow once: the client is asked with the ACP shape (title, kind, locations, options) and the write runs', async () => {
    kernel = await askingKernel()
    const k = kernel
    const file = join(k.dir, 'notes.txt')
    const { result, asked } = await overAcp(k, k.dir, () => select('allow-once'), () => k.call('write', { file_path: 'notes.txt', content: 'hello' }, { callId: 'w-1' }))
    expect(result.isError).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('hello')
    expect(asked).toEqual([{
      sessionId: 'acp-session-1',
      toolCall: {
        toolCallId: 'w-1',
        title: `Write ${file}`,
        kind: 'edit',
        status: 'pending',
        locations: [{ path: file }],
        rawInput: { file_path: 'notes.txt', content: 'hello' },
        content: [{ type: 'content', content: { type: 'text', text: 'Reason: writes need a yes' } }],
      },
      options: [
        { optionId: 'allow-once', name: expect.any(String), kind: 'allow_once' },
        { optionId: 'allow-always', name: expect.any(String), kind: 'allow_always' },
        { optionId: 'reject', name: expect.any(String), kind: 'reject_once' },
      ],
    }])
    expect(events(k, 'approval/decided')).toEqual([expect.objectContaining({ callId: 'w-1', outcome: { kind: 'approved', grant: 'once' }, by: 'listener' })])
  })

  it('allow always grants these exact arguments for the session: the identical call is not asked again, other arguments are', async () => {
    kernel = await askingKernel()
    const k = kernel
    const { result, asked } = await overAcp(k, k.dir, () => select('allow-always'), async () => [
      await k.call('guarded', { n: 1 }),
      await k.call('guarded', { n: 1 }),
      await k.call('guarded', { n: 2 }),
    ])
    expect(result.map((r) => r.isError)).toEqual([false, false, false])
    expect(asked.map((q) => q.toolCall.rawInput)).toEqual([{ n: 1 }, { n: 2 }])
    expect(events(k, 'approval/granted').map((g) => g.arguments)).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('reject denies: the call ends DENIED and nothing is written', async () => {
    kernel = await askingKernel()
    const k = kernel
    const { result } = await overAcp(k, k.dir, () => select('reject'), () => k.call('write', { file_path: 'out.txt', content: 'x' }))
    expect(result.error).toMatchObject({ code: 'DENIED', message: expect.stringContaining('rejected in the ACP client') })
    expect(existsSync(join(k.dir, 'out.txt'))).toBe(false)
  })

  it('a client that cancels, answers an option never offered, or fails leaves the call refused and nothing written', async () => {
    kernel = await askingKernel()
    const k = kernel
    const answers: Answer[] = [
      () => cancelled,
      () => select('allow-everything'),
      () => select('__proto__'),
      () => ({ outcome: { outcome: 'selected' } }) as any,
      () => { throw new Error('the editor crashed') },
    ]
    for (const [i, answer] of answers.entries()) {
      const { result, asked } = await overAcp(k, k.dir, answer, () => k.call('write', { file_path: `out-${i}.txt`, content: 'x' }))
      expect(asked).toHaveLength(1)
      expect(result.isError).toBe(true)
      expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
      expect(existsSync(join(k.dir, `out-${i}.txt`))).toBe(false)
    }
    expect(events(k, 'approval/decided').map((d) => d.outcome.kind)).toEqual(answers.map(() => 'unavailable'))
  })

  it('the kernel withdraws a question when its approval deadline fires: the client sees the cancellation', async () => {
    kernel = await askingKernel({ approval: { timeoutMs: 300 } })
    const k = kernel
    let withdrawn = false
    const { result } = await overAcp(k, k.dir, (_params, signal) => new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        withdrawn = true
        resolve(cancelled)
      }, { once: true })
    }), () => k.call('guarded', {}))
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(withdrawn).toBe(true)
  })

  it('an "allow" that arrives after the deadline withdrew the question approves nothing', async () => {
    kernel = await askingKernel({ approval: { timeoutMs: 200 } })
    const k = kernel
    let answeredLate = false
    // this client ignores the cancellation and says yes later anyway
    const { result } = await overAcp(k, k.dir, () => new Promise((resolve) => setTimeout(() => {
      answeredLate = true
      resolve(select('allow-once'))
    }, 600)), async () => {
      const call = await k.call('write', { file_path: 'late.txt', content: 'x' })
      // let the late answer arrive before the turn ends
      await new Promise((resolve) => setTimeout(resolve, 700))
      return call
    })
    expect(answeredLate).toBe(true)
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(existsSync(join(k.dir, 'late.txt'))).toBe(false)
    expect(events(k, 'approval/decided').map((d) => d.outcome.kind)).toEqual(['unavailable'])
    expect(events(k, 'approval/granted')).toEqual([])
  })

  it('the kernel\'s own approvers answer first; the disposer removes the listener; bad options are refused by name', async () => {
    kernel = await askingKernel()
    const k = kernel
    const hooks = () => ((k.ctx.root.lifecycle as any)._hooks['approval/request'] ?? []).length as number
    const before = hooks()
    k.ctx.plugin({ name: 'auto-yes', apply: (ctx) => { ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' })) } })
    const { result, asked } = await overAcp(k, k.dir, () => select('reject'), () => k.call('guarded', {}))
    expect(result.isError).toBe(false)
    expect(asked).toHaveLength(0)
    expect(hooks()).toBe(before + 1)

    const dispose = answerApprovalsOverAcp(k, { sessionId: 's', requestPermission: async () => select('allow-once') })
    expect(hooks()).toBe(before + 2)
    dispose()
    dispose()
    expect(hooks()).toBe(before + 1)
    expect(() => answerApprovalsOverAcp(k, { sessionId: '', requestPermission: async () => cancelled })).toThrow(/options\.sessionId/)
    expect(() => answerApprovalsOverAcp(k, { sessionId: 's' } as any)).toThrow(/options\.requestPermission/)
  })

  it('"allow always" is offered only where the approval service will record the grant (ApprovalRequestEvent.grantable)', async () => {
    // through the real service a request is grantable, and the first test shows the option offered
    const request = { exec: { callId: 'c', name: 'guarded', arguments: {} }, signal: new AbortController().signal } as unknown as ApprovalRequestEvent
    const kinds = (grantable?: boolean) => permissionRequest({ ...request, ...(grantable === undefined ? {} : { grantable }) }, { sessionId: 's', workspace: '/w' }).options.map((option) => option.kind)
    expect(kinds(true)).toEqual(['allow_once', 'allow_always', 'reject_once'])
    expect(kinds(false)).toEqual(['allow_once', 'reject_once'])
    expect(kinds()).toEqual(['allow_once', 'reject_once'])
    // a client choosing it anyway where it was not offered approves nothing
    expect(readPermission(select('allow-always'), false)).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/not offered/) })
    expect(readPermission(select('allow-always'), true)).toEqual({ kind: 'approved', grant: 'session' })
    expect(readPermission(select('allow-once'), false)).toEqual({ kind: 'approved', grant: 'once' })
  })
})
