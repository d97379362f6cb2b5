/**
 * One `dsh mcp` per session: a second server resuming a session another live
 * server holds exits 2 naming the session and the holder's pid, and appends
 * nothing; once the holder is gone — closed, or killed without cleaning up —
 * the session can be resumed. Two real server processes.
 */
import { basename, join } from 'node:path'
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CLI, connect, mcpServers, until } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

const start = mcpServers()

describe('dsh mcp --session holds the session', { timeout: 90_000 }, () => {
  it('a second server on a held session is refused with the holder\'s pid; after the holder dies it resumes', async () => {
    const { ws, conn } = await start({})
    const logs = () => readdirSync(join(ws.dir, '.dsh/sessions')).filter((name) => name.endsWith('.jsonl'))
    const [file] = await until(() => logs().length === 1 && logs(), 'the first server\'s session log')
    const id = basename(file!, '.jsonl')
    const holder = conn.transport.pid
    expect(holder).toBeGreaterThan(0)
    await ws.waitForEvent((e) => e.type === 'mcp/connected', 'the first server\'s mcp/connected')
    const before = ws.events().length

    const second = spawnSync(process.execPath, [CLI, 'mcp', '--config', ws.config, '--session', id], { cwd: ws.dir, env: dshEnv(), input: '', encoding: 'utf8', timeout: 30_000 })
    expect(second.status, second.stderr).toBe(2)
    expect(second.stderr).toContain(`session ${JSON.stringify(id)} is in use by process ${holder}`)
    expect(ws.events()).toHaveLength(before)

    // the holder is killed without a chance to clean up: its lock is stale
    process.kill(holder!, 'SIGKILL')
    await until(() => {
      try {
        process.kill(holder!, 0)
        return false
      } catch {
        return true
      }
    }, 'the first server to die')
    const again = await connect(ws, { args: ['--session', id] })
    try {
      await again.stderr.waitFor(/resumed session/)
      // while it runs, it holds the session in turn
      const third = spawnSync(process.execPath, [CLI, 'mcp', '--config', ws.config, '--session', id], { cwd: ws.dir, env: dshEnv(), input: '', encoding: 'utf8', timeout: 30_000 })
      expect(third.status).toBe(2)
      expect(third.stderr).toContain(`is in use by process ${again.transport.pid}`)
      // nor does dsh exec append to it
      const exec = spawnSync(process.execPath, [CLI, 'exec', '--config', ws.config, '--session', id, 'ls', '{}'], { cwd: ws.dir, env: dshEnv(), input: '', encoding: 'utf8', timeout: 30_000 })
      expect(exec.status, exec.stderr).toBe(2)
      expect(exec.stderr).toContain(`is in use by process ${again.transport.pid}`)
    } finally {
      await again.close()
    }
    expect(logs()).toEqual([file])
  })
})
