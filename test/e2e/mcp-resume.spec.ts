/**
 * `dsh mcp --session <id>` resumes a session: its events are recovered, new
 * calls go to the same log, a session grant made before still answers, and a
 * revoked one does not.
 */
import { basename } from 'node:path'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CLI, connect, errorCode, fixture, mcpServers, text } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

const start = mcpServers()

const plugins = { plugins: { [fixture('ask-tool.mjs')]: {}, [fixture('grant-revoker.mjs')]: {} } }

describe('dsh mcp --session', { timeout: 90_000 }, () => {
  it('keeps a session grant and refuses a revoked one', async () => {
    const { ws, conn, client } = await start(plugins, { elicit: () => ({ action: 'accept', content: { decision: 'allow for this session' } }) })
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'kept' } })).isError).toBe(false)
    expect((await client.callTool({ name: 'ask_me', arguments: { what: 'revoked' } })).isError).toBe(false)
    const revoked = await client.callTool({ name: 'revoke_grant', arguments: { what: 'revoked' } })
    expect(revoked.structuredContent).toEqual({ revoked: 1 })
    await conn.close()
    const [file] = readdirSync(join(ws.dir, '.dsh/sessions'))
    const id = basename(file, '.jsonl')
    const before = ws.events().length

    // a client without elicitation: only a grant can approve now
    const again = await connect(ws, { args: ['--session', id] })
    try {
      const kept = await again.client.callTool({ name: 'ask_me', arguments: { what: 'kept' } })
      expect(kept.isError, text(kept)).toBe(false)
      const refused = await again.client.callTool({ name: 'ask_me', arguments: { what: 'revoked' } })
      expect(errorCode(refused)).toBe('APPROVAL_UNAVAILABLE')
      const fresh = await again.client.callTool({ name: 'ask_me', arguments: { what: 'never granted' } })
      expect(errorCode(fresh)).toBe('APPROVAL_UNAVAILABLE')
    } finally {
      await again.close()
    }
    // one log: the resumed connection appended to it
    expect(readdirSync(join(ws.dir, '.dsh/sessions'))).toEqual([file])
    const events = ws.events()
    const connected = events.filter((e) => e.type === 'mcp/connected')
    expect(connected).toHaveLength(2)
    expect(connected[1].data.resumed).toEqual({ events: expect.any(Number) })
    expect(connected[1].data.resumed.events).toBeGreaterThanOrEqual(before - 1)
    const decided = events.filter((e) => e.type === 'approval/decided' && e.seq > connected[1].seq)
    expect(decided.map((e) => [e.data.name, e.data.outcome.kind, e.data.by])).toEqual([
      ['ask_me', 'approved', 'grant'],
      ['ask_me', 'unavailable', 'listener'],
      ['ask_me', 'unavailable', 'listener'],
    ])
    // seq goes on from where the first connection left it
    const seqs = events.map((e) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(new Set(seqs).size).toBe(seqs.length)
  })

  it('an unknown or malformed id exits 2 naming it, and creates nothing', async () => {
    const { ws } = await start(plugins)
    const unknown = spawnSync(process.execPath, [CLI, 'mcp', '--config', ws.config, '--session', 'no-such-session'], { cwd: ws.dir, env: dshEnv(), input: '', encoding: 'utf8', timeout: 30_000 })
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toMatch(/--session: no session "no-such-session"/)
    const bad = spawnSync(process.execPath, [CLI, 'mcp', '--config', ws.config, '--session', '../escape'], { cwd: ws.dir, env: dshEnv(), input: '', encoding: 'utf8', timeout: 30_000 })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/--session: "\.\.\/escape" is not a session id/)
    expect(readdirSync(join(ws.dir, '.dsh/sessions')).filter((f) => f.includes('no-such') || f.includes('escape'))).toEqual([])
  })
})
