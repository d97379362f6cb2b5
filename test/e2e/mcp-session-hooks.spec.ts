/**
 * SessionStart and SessionEnd hooks around a real `dsh mcp` connection: the
 * server's session opening runs the `startup` hooks, the client closing runs
 * SessionEnd before the log closes, and `--session <id>` runs the `resume`
 * hooks. Real hook processes, written to files the test reads.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { gone } from '../processes.js'
import { connect, mcpServers, until } from './mcp-helpers.js'

const start = mcpServers()

// written whole, then renamed: the test never reads a file the hook is still writing
const record = (name: string) => ({ type: 'command', command: `cat > "$CLAUDE_PROJECT_DIR/${name}.part" && mv "$CLAUDE_PROJECT_DIR/${name}.part" "$CLAUDE_PROJECT_DIR/${name}.json"` })

describe('dsh mcp runs SessionStart and SessionEnd hooks', { timeout: 90_000 }, () => {
  it('startup at connect, SessionEnd at close (audited in the log), resume with --session', async () => {
    const hooks = {
      SessionStart: [{ matcher: 'startup', hooks: [record('startup')] }, { matcher: 'resume', hooks: [record('resume')] }],
      SessionEnd: [{ hooks: [record('end')] }],
    }
    const { ws, conn } = await start({ plugins: { 'hooks-claude-code': { hooks } } })
    const read = (name: string) => JSON.parse(readFileSync(join(ws.dir, `${name}.json`), 'utf8'))
    const started = await until(() => existsSync(join(ws.dir, 'startup.json')) && read('startup'), 'the SessionStart hook')
    expect(started).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', cwd: ws.dir })
    await conn.close()
    const ended = await until(() => existsSync(join(ws.dir, 'end.json')) && read('end'), 'the SessionEnd hook')
    expect(ended).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', session_id: started.session_id })
    const audited = await until(() => {
      const results = ws.events().filter((e) => e.type === 'hook/result')
      return results.length === 2 && results
    }, 'both hook results in the log')
    expect(audited.map((e) => e.data.event)).toEqual(['SessionStart', 'SessionEnd'])
    // SessionEnd ran before the log closed: its result precedes nothing but the close
    const events = ws.events()
    expect(events.findIndex((e) => e.type === 'mcp/closed')).toBeLessThan(events.findIndex((e) => e.type === 'hook/result' && e.data.event === 'SessionEnd'))
    expect(existsSync(join(ws.dir, 'resume.json'))).toBe(false)

    const again = await connect(ws, { args: ['--session', started.session_id] })
    try {
      expect(await until(() => existsSync(join(ws.dir, 'resume.json')) && read('resume'), 'the resume hook')).toMatchObject({ source: 'resume', session_id: started.session_id })
    } finally {
      await again.close()
    }
  })

  it('a SessionEnd hook at its 600 s default does not hold the shutdown: killed with its process group at the 1.5 s budget, recorded, and the server exits', async () => {
    const hooks = { SessionEnd: [{ hooks: [{ type: 'command', command: 'cat > /dev/null; sleep 600 & echo $! > "$CLAUDE_PROJECT_DIR/sleeper.pid"; wait' }] }] }
    const { ws, conn } = await start({ plugins: { 'hooks-claude-code': { hooks } } })
    const pid = conn.transport.pid!
    const exited = new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid, 0)
        } catch {
          clearInterval(poll)
          resolve(Date.now())
        }
      }, 20)
    })
    const closing = Date.now()
    // a host stopping the server: SIGTERM, a clean shutdown
    process.kill(pid, 'SIGTERM')
    const took = (await exited) - closing
    expect(took).toBeLessThan(15_000)
    // it ended by itself: the hook's result was written before the log closed
    const results = ws.events().filter((e) => e.type === 'hook/result' && e.data.event === 'SessionEnd')
    expect(results.map((e) => e.data.failure)).toEqual(['aborted'])
    const sleeper = Number(readFileSync(join(ws.dir, 'sleeper.pid'), 'utf8'))
    expect(await gone(sleeper)).toBe(true)
  })
})
