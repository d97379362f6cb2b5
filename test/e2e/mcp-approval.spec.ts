/**
 * `dsh mcp` approval through MCP elicitation, with the official SDK client
 * answering the form. A fixture's pre-execute listener answers `ask` for
 * `ask_me`; the server asks the client only when the client declared
 * elicitation and none of the kernel's own approvers answered.
 */
import { describe, expect, it } from 'vitest'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { LoggingMessageNotificationSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { errorCode, fixture, mcpServers, text, until, type StartOptions } from './mcp-helpers.js'

const open = mcpServers()

type Form = ElicitRequest['params'] & { requestedSchema?: any }

async function start(answer: StartOptions['elicit'], config: object = {}) {
  const asked: Form[] = []
  const { ws, client } = await open({ plugins: { [fixture('ask-tool.mjs')]: {} }, ...config }, answer ? { elicit: (params, extra) => (asked.push(params as Form), answer(params, extra)) } : {})
  return { ws, client, asked }
}

const decide = (decision: string, reason?: string) => (): ElicitResult => ({ action: 'accept', content: { decision, ...(reason ? { reason } : {}) } })

describe('dsh mcp: approval through elicitation', () => {
  it('accept "allow once" approves that call; the next identical call asks again', async () => {
    const { ws, client, asked } = await start(decide('allow once'))
    const result = await client.callTool({ name: 'ask_me', arguments: { what: 'laundry' } })
    expect(result.isError).toBe(false)
    expect(text(result)).toBe('did laundry')
    expect(result.structuredContent).toEqual({ did: 'laundry' })
    expect(asked).toHaveLength(1)
    expect(asked[0].message).toContain('"ask_me"')
    expect(asked[0].message).toContain('ask_me needs a human')
    expect(asked[0].message).toContain('"what": "laundry"')
    expect(asked[0].requestedSchema.properties.decision.enum).toEqual(['allow once', 'allow for this session', 'deny'])
    expect(asked[0].requestedSchema.properties.decision.default).toBe('allow once')
    await client.callTool({ name: 'ask_me', arguments: { what: 'laundry' } })
    expect(asked).toHaveLength(2)
    const decided = ws.events().filter((e) => e.type === 'approval/decided')
    expect(decided.map((e) => [e.data.outcome.kind, e.data.by])).toEqual([['approved', 'listener'], ['approved', 'listener']])
    expect(ws.events().find((e) => e.type === 'mcp/connected')?.data.elicitation).toBe(true)
  })

  it('"allow for this session" grants these exact arguments: no second question for them, one for others', async () => {
    const { client, asked } = await start(decide('allow for this session'))
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'a' } })).isError).toBe(false)
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'a' } })).isError).toBe(false)
    expect(asked).toHaveLength(1)
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'b' } })).isError).toBe(false)
    expect(asked).toHaveLength(2)
  })

  it('"deny" with a reason denies, and the model reads the reason', async () => {
    const { client } = await start(decide('deny', 'not today'))
    const result = await client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    expect(errorCode(result)).toBe('DENIED')
    expect(text(result)).toBe('approval denied: denied through the MCP client: not today(decided by approval asked by the tools/pre-execute listener of plugin ask-tool)')
  })

  it('declining or dismissing the form denies', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { client } = await start(() => ({ action }))
      const result = await client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
      expect(errorCode(result)).toBe('DENIED')
      expect(text(result)).toMatch(action === 'decline' ? /declined/ : /dismissed/)
    }
  })

  it('a client that fails to answer, or answers outside the form, leaves the call refused (APPROVAL_UNAVAILABLE)', async () => {
    const failing = await start(() => {
      throw new Error('the client broke')
    })
    const broken = await failing.client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    expect(errorCode(broken)).toBe('APPROVAL_UNAVAILABLE')
    expect(text(broken)).toMatch(/could not answer/)
    const odd = await start(() => ({ action: 'accept', content: { decision: 'allow forever' } }))
    const malformed = await odd.client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    expect(errorCode(malformed)).toBe('APPROVAL_UNAVAILABLE')
  })

  it('hostile text in the question is escaped: no terminal escapes or bidirectional overrides reach the client', async () => {
    const { client, asked } = await start(decide('deny'), {
      plugins: { [fixture('ask-tool.mjs')]: { reason: 'safe\u202e\u0007\u001b[2J' } },
    })
    await client.callTool({ name: 'ask_me', arguments: { what: 'evil\u2066\u001b]0;x\u0007' } })
    const message = asked[0].message
    expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(message).toContain('safe\\u202e\\u0007\\u001b[2J')
    expect(message).toContain('evil\\u2066\\u001b]0;x\\u0007')
  })

  it('a client without the elicitation capability is never asked: APPROVAL_UNAVAILABLE naming the reason asked, who asked and the remedy', async () => {
    const { ws, client } = await start(undefined, { plugins: { [fixture('ask-tool.mjs')]: { reason: 'writes need a human' } } })
    const result = await client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    expect(result.isError).toBe(true)
    expect(errorCode(result)).toBe('APPROVAL_UNAVAILABLE')
    const message = text(result)
    expect(message).toMatch(/^approval unavailable \(plugin ask-tool asked: writes need a human\): no approval\/request listener answered; this MCP client cannot answer approval requests/)
    expect(message).toContain('To allow such calls:')
    expect(message).toContain('approval.preset')
    expect(message).toContain('approver plugin')
    // the server's listener answered, with the kernel's reason and its own
    const decided = ws.events().find((e) => e.type === 'approval/decided')?.data
    expect(decided?.by).toBe('listener')
    expect(decided?.outcome).toEqual({ kind: 'unavailable', reason: expect.stringMatching(/^no approval\/request listener answered; this MCP client cannot answer/) })
  })

  it('a client without elicitation is told once at connect: a log message and a line on stderr', async () => {
    const logs: unknown[] = []
    const before = (client: Client) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params) })
    const { ws, conn } = await open({ plugins: { [fixture('ask-tool.mjs')]: {} } }, { before })
    await conn.stderr.waitFor(/cannot answer approval requests/)
    const lines = conn.stderr.text.split('\n').filter((l) => l.includes('cannot answer approval requests'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('To allow such calls:')
    await until(() => logs.length > 0, 'the notice as a log message')
    expect(logs).toEqual([{ level: 'warning', logger: 'dsh', data: { type: 'mcp/no-elicitation', message: expect.stringContaining('To allow such calls:') } }])
    await conn.client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    await ws.waitForEvent((e) => e.type === 'tool/result', 'the refused call')
    // told once: not again for the refused call
    expect(conn.stderr.text.split('\n').filter((l) => l.includes('cannot answer approval requests'))).toHaveLength(1)
  })

  it('a client with elicitation is told nothing at connect', async () => {
    const logs: unknown[] = []
    const before = (client: Client) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params) })
    const { ws, conn } = await open({ plugins: { [fixture('ask-tool.mjs')]: {} } }, { elicit: decide('allow once'), before })
    await ws.waitForEvent((e) => e.type === 'mcp/connected', 'the connection')
    await conn.client.ping()
    expect(logs).toEqual([])
    expect(conn.stderr.text).not.toContain('cannot answer approval requests')
  })

  it('the kernel\'s own approvers answer first; the client is asked only when none did', async () => {
    const { client, asked } = await start(decide('allow once'), {
      plugins: { [fixture('ask-tool.mjs')]: {}, [fixture('auto-approver.mjs')]: { allow: ['safe'], deny: ['bad'] } },
    })
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'safe' } })).isError).toBe(false)
    const refused = await client.callTool({ name: 'ask_me', arguments: { what: 'bad' } })
    expect(text(refused)).toBe('approval denied: auto-approver refuses bad(decided by approval asked by the tools/pre-execute listener of plugin ask-tool)')
    expect(asked).toHaveLength(0)
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'other' } })).isError).toBe(false)
    expect(asked).toHaveLength(1)
  })

  it('policy never denies without asking the client', async () => {
    const { client, asked } = await start(decide('allow once'), { approval: { policy: 'never' } })
    const result = await client.callTool({ name: 'ask_me', arguments: { what: 'x' } })
    expect(errorCode(result)).toBe('DENIED')
    expect(asked).toHaveLength(0)
  })

  it('cancelling a call while its question is open withdraws the question and ends the call', async () => {
    let withdrawn!: () => void
    const gone = new Promise<void>((resolve) => (withdrawn = resolve))
    // the SDK client aborts its handler's signal when the server cancels the elicitation request
    const { ws, client, asked } = await start((_form, extra) => new Promise<ElicitResult>((_resolve, reject) => {
      extra.signal.addEventListener('abort', () => {
        withdrawn()
        reject(new Error('withdrawn'))
      })
    }))
    const controller = new AbortController()
    const pending = client.callTool({ name: 'ask_me', arguments: { what: 'x' } }, undefined, { signal: controller.signal })
    await ws.waitForEvent((e) => e.type === 'approval/asked', 'the approval request')
    await until(() => asked.length === 1, 'the form to reach the client')
    controller.abort()
    await expect(pending).rejects.toThrow()
    await gone
    const decided = await ws.waitForEvent((e) => e.type === 'approval/decided', 'the approval decision')
    expect(decided.data).toMatchObject({ outcome: { kind: 'unavailable' }, by: 'abort' })
    const result = await ws.waitForEvent((e) => e.type === 'tool/result', 'the call result')
    expect(result.data.error.code).toBe('APPROVAL_UNAVAILABLE')
  })
})
