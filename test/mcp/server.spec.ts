/**
 * The MCP server in process (`createMcpServer` over the SDK's in-memory
 * transport): several connections on one kernel keep their sessions and
 * their approval questions apart; `close()` cancels what runs and leaves no
 * listener behind; result mapping.
 */
import { describe, expect, it } from 'vitest'
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js'
import { testTool, type TestKernel } from 'dsh/testing'
import { approvalForm, readAnswer, toCallToolResult } from '@dsh/mcp'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { connectClient, needsApproval, testKernel } from './in-process.js'

const hooks = (k: TestKernel, name: string) => ((k.ctx.root.lifecycle as any)._hooks[name] ?? []).length as number

describe('createMcpServer', () => {
  it('each connection has its own session; an approval question goes only to the client whose call asked', async () => {
    const kernel = await testKernel()
    needsApproval(kernel)
    const a = await connectClient(kernel, { answer: () => ({ action: 'decline' }) })
    const b = await connectClient(kernel, { answer: () => ({ action: 'accept', content: { decision: 'allow once' } }) })
    const refused = await a.client.callTool({ name: 'guarded', arguments: {} })
    expect(refused.isError).toBe(true)
    expect(a.asked()).toBe(1)
    expect(b.asked()).toBe(0)
    const allowed = await b.client.callTool({ name: 'guarded', arguments: {} })
    expect(allowed.isError).toBe(false)
    expect(a.asked()).toBe(1)
    expect(b.asked()).toBe(1)
    expect(a.server.session).toBeDefined()
    expect(a.server.session).not.toBe(b.server.session)
    expect(a.server.session!.events().filter((e) => e.type === 'tool/result')).toHaveLength(1)
  })

  it('close() cancels the calls in flight (ABORTED, awaited), ends the turn, closes the session and removes its listeners; twice is once', async () => {
    const kernel = await testKernel()
    const approvalBefore = hooks(kernel, 'approval/request')
    const changeBefore = hooks(kernel, 'tools/change')
    let sawAbort = false
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    kernel.ctx.plugin({
      name: 'waits',
      inject: ['tools'],
      apply(ctx) {
        ctx.tools.register(testTool('wait', (_args, call) => new Promise((_resolve, reject) => {
          started()
          call.signal.addEventListener('abort', () => {
            sawAbort = true
            reject(new Error('stopped'))
          })
        })))
      },
    })
    const { server, client } = await connectClient(kernel)
    expect(hooks(kernel, 'approval/request')).toBe(approvalBefore + 1)
    expect(hooks(kernel, 'tools/change')).toBe(changeBefore + 1)
    const pending = client.callTool({ name: 'wait', arguments: {} }).catch((error) => error)
    await running
    const session = server.session!
    await Promise.all([server.close('test'), server.close('again')])
    expect(sawAbort).toBe(true)
    const types = session.events().map((e) => e.type)
    expect(session.events().find((e) => e.type === 'tool/result')?.data).toMatchObject({ error: { code: 'ABORTED' } })
    expect(types.slice(-2)).toEqual(['mcp/closed', 'turn/end'])
    expect(types.filter((t) => t === 'mcp/closed')).toHaveLength(1)
    expect(session.inTurn).toBe(false)
    await expect(session.append('turn/begin', { turn: 99 })).rejects.toThrow(/closed/)
    expect(hooks(kernel, 'approval/request')).toBe(approvalBefore)
    expect(hooks(kernel, 'tools/change')).toBe(changeBefore)
    await pending
  })
})

describe('result mapping', () => {
  const base = { callId: 'c', name: 't', isError: false }

  it('only a JSON-object value of a success becomes structuredContent', () => {
    expect(toCallToolResult({ ...base, content: [{ type: 'text', text: '[1]' }], value: [1] })).toEqual({ content: [{ type: 'text', text: '[1]' }], isError: false })
    expect(toCallToolResult({ ...base, content: [], value: 'x' }).structuredContent).toBeUndefined()
    expect(toCallToolResult({ ...base, content: [], value: null }).structuredContent).toBeUndefined()
    expect(toCallToolResult({ ...base, content: [], value: { a: 1 } }).structuredContent).toEqual({ a: 1 })
  })

  it('content blocks pass unchanged; an error carries its code in _meta', () => {
    const link = { type: 'resource_link' as const, uri: 'file:///x', name: 'x' }
    expect(toCallToolResult({ ...base, content: [link] }).content).toEqual([link])
    const error = toCallToolResult({ ...base, isError: true, content: [{ type: 'text', text: 'no' }], value: { a: 1 }, error: { code: 'DENIED', message: 'no' } })
    expect(error).toEqual({ content: [{ type: 'text', text: 'no' }], isError: true, _meta: { 'dsh/error': { code: 'DENIED', message: 'no' } } })
    // who decided: in the meta, and as the last line of the text a client shows
    const source = { kind: 'guard', plugin: 'locks', detail: 'noLockfiles' } as const
    const attributed = toCallToolResult({ ...base, isError: true, content: [{ type: 'text', text: 'not allowed' }], error: { code: 'DENIED', message: 'not allowed', source } })
    expect(attributed).toEqual({
      content: [{ type: 'text', text: 'not allowed' }, { type: 'text', text: '(decided by guard noLockfiles of plugin locks)' }],
      isError: true,
      _meta: { 'dsh/error': { code: 'DENIED', message: 'not allowed', source } },
    })
  })
})

describe('reading an elicitation answer', () => {
  it('maps the three decisions, and fails closed on anything else', () => {
    expect(readAnswer({ action: 'accept', content: { decision: 'allow once' } })).toEqual({ kind: 'approved', grant: 'once' })
    expect(readAnswer({ action: 'accept', content: { decision: 'allow for this session' } })).toEqual({ kind: 'approved', grant: 'session' })
    expect(readAnswer({ action: 'accept', content: { decision: 'deny', reason: '  ' } })).toEqual({ kind: 'denied', reason: 'denied through the MCP client' })
    expect(readAnswer({ action: 'decline' }).kind).toBe('denied')
    expect(readAnswer({ action: 'cancel' }).kind).toBe('denied')
    for (const content of [undefined, {}, { decision: 'ALLOW ONCE' }, { decision: 'allow' }, { decision: true }]) {
      expect(readAnswer({ action: 'accept', content: content as any }).kind).toBe('unavailable')
    }
  })

  it('"allow for this session" is offered only where the approval service will record the grant', async () => {
    // through the real service: the request says it is grantable, the form offers the session grant, and it is recorded
    const kernel = await testKernel()
    needsApproval(kernel)
    const forms: ElicitRequest['params'][] = []
    const seen: Array<boolean | undefined> = []
    kernel.ctx.plugin({ name: 'sees', apply: (ctx) => ctx.on('approval/request', (request, next) => (seen.push(request.grantable), next()), true) })
    const { server, client } = await connectClient(kernel, { answer: (params) => (forms.push(params), { action: 'accept', content: { decision: 'allow for this session' } }) })
    expect((await client.callTool({ name: 'guarded', arguments: {} })).isError).toBe(false)
    expect(seen).toEqual([true])
    const schema = (forms[0] as unknown as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema
    expect(schema.properties.decision.enum).toContain('allow for this session')
    expect(server.session!.events().filter((e) => e.type === 'approval/granted')).toHaveLength(1)

    // a request from a gate that records no grants (grantable unset): not offered, and a client that answers it anyway approves nothing
    const request = { exec: { callId: 'c', name: 'guarded', arguments: {} }, session: server.session, signal: new AbortController().signal } as unknown as ApprovalRequestEvent
    const form = approvalForm(request) as unknown as { message: string; requestedSchema: { properties: { decision: { enum: string[] } } } }
    expect(form.requestedSchema.properties.decision.enum).toEqual(['allow once', 'deny'])
    expect(form.message).not.toContain('for the rest of this session')
    expect(readAnswer({ action: 'accept', content: { decision: 'allow for this session' } }, false).kind).toBe('unavailable')
    expect(approvalForm({ ...request, grantable: false }).requestedSchema.properties.decision).toMatchObject({ enum: ['allow once', 'deny'] })
  })
})
