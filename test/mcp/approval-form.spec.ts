/**
 * The approval form as the clients show it: the first line names the tool, what it acts on and
 * the sandbox mode; the one field defaults to allowing, so that accepting the form as shown
 * allows and declining denies; and an answered ask is never withdrawn afterwards (no
 * `notifications/cancelled` for a request the client has answered).
 */
import { describe, expect, it } from 'vitest'
import type { ElicitRequest, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { approvalForm, readAnswer } from '@dsh/mcp'
import { connectClient, needsApproval, testKernel } from './in-process.js'

type Form = { message: string; requestedSchema: { properties: Record<string, { enum?: string[]; default?: unknown }>; required?: string[] } }

const request = (args: unknown, extra: Partial<ApprovalRequestEvent> = {}) =>
  ({ exec: { callId: 'c1', name: 'bash', arguments: args }, session: {}, signal: new AbortController().signal, ...extra }) as unknown as ApprovalRequestEvent

describe('the approval form', () => {
  it('says in its first line the tool, the command or path, and the mode; the rest follows', () => {
    const form = approvalForm(request({ command: 'echo hi > x.txt\nrm y' }, { sandboxMode: 'workspace-write', reason: 'the command asks to run with workspace-write' })) as unknown as Form
    const lines = form.message.split('\n')
    expect(lines[0]).toBe('Allow bash with sandbox mode workspace-write: echo hi > x.txt\\nrm y')
    expect(lines[1]).toBe('Why dsh asks: the command asks to run with workspace-write')
    expect(lines[2]).toBe('Allowing lets this call write inside the workspace. Accept allows it; Decline or Esc denies it.')
    expect(form.message).toContain('"command": "echo hi > x.txt\\nrm y"')
    const write = approvalForm({ ...request({ file_path: 'src/a.ts', content: 'x' }), exec: { callId: 'c', name: 'write', arguments: { file_path: 'src/a.ts', content: 'x' } } } as unknown as ApprovalRequestEvent) as unknown as Form
    expect(write.message.split('\n')[0]).toBe('Allow write: src/a.ts')
  })

  it('hostile text cannot disguise the first line (control characters and bidi overrides escaped, length cut)', () => {
    const form = approvalForm(request({ command: `ls\u202e\u001b[2Jrm -rf ~ ${'x'.repeat(500)}` })) as unknown as Form
    const first = form.message.split('\n')[0]!
    expect(first).not.toMatch(/[\u202e\u001b]/)
    expect(first).toContain('\\u202e')
    expect(first.length).toBeLessThan(260)
  })

  it('has one field, the decision, allowing first and by default: accepting the form as shown allows', () => {
    for (const grantable of [true, false]) {
      const form = approvalForm(request({ command: 'x' }, { grantable })) as unknown as Form
      expect(Object.keys(form.requestedSchema.properties)).toEqual(['decision'])
      const decision = form.requestedSchema.properties.decision!
      expect(decision.enum![0]).toBe('allow once')
      expect(decision.default).toBe('allow once')
      expect(decision.enum!.at(-1)).toBe('deny')
      // what a client sends when its user accepts without touching the field: the default
      expect(readAnswer({ action: 'accept', content: { decision: decision.default as string } }, grantable)).toEqual({ kind: 'approved', grant: 'once' })
    }
    expect(readAnswer({ action: 'decline' }).kind).toBe('denied')
    expect(readAnswer({ action: 'cancel' }).kind).toBe('denied')
  })
})

describe('an answered ask', () => {
  it('is not withdrawn: no notifications/cancelled reaches the client for a request it answered', async () => {
    const kernel = await testKernel()
    const { ran } = needsApproval(kernel)
    const sent: JSONRPCMessage[] = []
    const asked: ElicitRequest['params'][] = []
    let answers = [{ action: 'accept' as const, content: { decision: 'allow once' } }, { action: 'decline' as const }]
    const { client } = await connectClient(kernel, {
      sent,
      answer: (params) => {
        asked.push(params)
        const [answer, ...rest] = answers
        answers = rest
        return answer!
      },
    })
    expect((await client.callTool({ name: 'guarded', arguments: {} })).isError).toBe(false)
    expect((await client.callTool({ name: 'guarded', arguments: {} })).isError).toBe(true)
    // one more round trip: anything the server sent after the answers is in `sent` before its reply
    await client.listTools()
    expect(asked).toHaveLength(2)
    expect(ran()).toBe(1)
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/cancelled')).toEqual([])
  })
})
