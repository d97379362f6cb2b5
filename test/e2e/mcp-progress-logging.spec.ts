/**
 * `dsh mcp` end to end, signs of life: `notifications/progress` for a call
 * that carried a progress token (bash's output so far, run_code's sub-calls
 * done), and the session's audit events as log messages once the client set
 * a level.
 */
import { describe, expect, it } from 'vitest'
import { LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js'
import { sandboxBackend, skipWhen } from '../backends.js'
import { fixture, mcpServers, text, until } from './mcp-helpers.js'

const start = mcpServers()
const noSandbox = skipWhen(!(await sandboxBackend()), 'the bash progress test', 'no sandbox backend can confine bash here')

describe('dsh mcp: progress', () => {
  it.skipIf(noSandbox)('a 3 s bash call with a progress token gets a notification at least every second, with its output so far', async () => {
    const { client } = await start({ plugins: { 'workspace-tools': {} } })
    const seen: Array<Progress & { at: number }> = []
    const began = Date.now()
    const result = await client.callTool(
      { name: 'bash', arguments: { command: 'for i in 1 2 3; do echo line $i; sleep 1; done' } },
      undefined,
      { onprogress: (p) => seen.push({ ...p, at: Date.now() }), timeout: 30_000 },
    )
    expect(result.isError, text(result)).toBe(false)
    expect(text(result)).toContain('line 3')
    // every 500 ms while it ran: about six in 3 s (at least one a second even on a loaded machine)
    const ranFor = (seen.at(-1)?.at ?? began) - began
    expect(seen.length).toBeGreaterThanOrEqual(Math.max(3, Math.floor(ranFor / 1000)))
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress)
    expect(seen[0].message).toMatch(/^\d+ bytes?, \d+ lines? of output so far$/)
    expect(seen.some((p) => /^(1[2-9]|[2-9]\d) bytes, [2-3] lines of output so far$/.test(p.message ?? ''))).toBe(true)
  })

  it('run_code reports its sub-calls done', async () => {
    const { client } = await start({ tools: { mode: 'code' }, plugins: { [fixture('slow-tool.mjs')]: {} } })
    await until(async () => (await client.listTools()).tools.some((t) => t.name === 'run_code'), 'run_code to be listed')
    const seen: Progress[] = []
    const result = await client.callTool(
      { name: 'run_code', arguments: { code: 'for (let i = 0; i < 4; i++) await tools.slow({ ms: 400 }); return "done"' } },
      undefined,
      { onprogress: (p) => seen.push(p), timeout: 30_000 },
    )
    expect(result.isError, text(result)).toBe(false)
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.map((p) => p.message)).toContainEqual(expect.stringMatching(/^[1-3] sub-calls? done, 1 running$/))
  })

  it('a call without a progress token gets none', async () => {
    const { client } = await start({ plugins: { [fixture('slow-tool.mjs')]: {} } })
    const notes: unknown[] = []
    client.fallbackNotificationHandler = async (n) => { notes.push(n) }
    await client.callTool({ name: 'slow', arguments: { ms: 1200 } })
    expect(notes.filter((n: any) => n.method === 'notifications/progress')).toEqual([])
  })
})

function collectLogs(client: { setNotificationHandler: (schema: typeof LoggingMessageNotificationSchema, fn: (n: LoggingMessageNotification) => void) => void }) {
  const logs: LoggingMessageNotification['params'][] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params) })
  return logs
}

describe('dsh mcp: audit events as log messages', () => {
  it('declares logging; sends nothing before logging/setLevel, then every event whole, denials at warning', async () => {
    const { client, ws } = await start({ plugins: { [fixture('echo-tool.mjs')]: {}, [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: '^rm ' } } }, { elicit: () => ({ action: 'decline' }) })
    expect(client.getServerCapabilities()?.logging).toEqual({})
    const logs = collectLogs(client)
    await client.callTool({ name: 'echo', arguments: { command: 'before' } })
    await ws.waitForEvent((e) => e.type === 'tool/result', 'the first result')
    // its answer comes after any message the server sent before reading it
    await client.setLoggingLevel('info')
    expect(logs).toEqual([])
    await client.callTool({ name: 'echo', arguments: { command: 'hi' } })
    await client.callTool({ name: 'echo', arguments: { command: 'rm -rf /' } })
    const denial = await until(() => logs.find((l) => (l.data as any)?.type === 'tool/result' && (l.data as any).data.isError), 'the denial as a log message')
    expect(denial.level).toBe('warning')
    expect(denial.logger).toBe('dsh')
    expect(denial.data).toMatchObject({ seq: expect.any(Number), time: expect.any(Number), type: 'tool/result', data: { name: 'echo', error: { code: 'DENIED' } } })
    const call = logs.find((l) => (l.data as any)?.type === 'tool/call' && (l.data as any).data.arguments?.command === 'hi')
    expect(call?.level).toBe('info')
    // the messages are the log's events, whole and in order
    const sent = logs.map((l) => l.data as { seq: number })
    // a message may go out before its line reaches the file (non-durable lines are written on the next turn)
    const logged = await until(() => {
      const found = ws.events().filter((e) => sent.some((s) => s.seq === e.seq))
      return found.length === sent.length && found
    }, 'every sent event in the log')
    expect(sent).toEqual(logged.map((e) => ({ seq: e.seq, time: expect.any(Number), type: e.type, data: e.data })))
    expect(sent.map((s) => s.seq)).toEqual([...sent.map((s) => s.seq)].sort((a, b) => a - b))
  })

  it('at level warning only denials arrive', async () => {
    const { client } = await start({ plugins: { [fixture('echo-tool.mjs')]: {}, [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: '^rm ' } } }, { elicit: () => ({ action: 'decline' }) })
    const logs = collectLogs(client)
    await client.setLoggingLevel('warning')
    await client.callTool({ name: 'echo', arguments: { command: 'hi' } })
    await client.callTool({ name: 'echo', arguments: { command: 'rm x' } })
    await until(() => logs.length > 0, 'a log message')
    // a round trip: what the server sent before answering it has arrived
    await client.ping()
    expect(logs.map((l) => [l.level, (l.data as any).type])).toEqual([['warning', 'tool/result']])
  })
})
