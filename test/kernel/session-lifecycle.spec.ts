/**
 * The sessions service tells plugins of a session's life: `session/opened`
 * (`startup` for a new log, `resume` for one with events; not again for an id
 * already open) and `session/ending` from `end()`, awaited while the session
 * can still be appended to. A listener that throws or rejects changes nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionService, type Session } from '@dsh/kernel'

const dirs: string[] = []
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }) })

async function service() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-lifecycle-'))
  dirs.push(dir)
  const ctx = new Context()
  ctx.plugin(SessionService, { dataDir: dir })
  await ctx.start()
  return ctx
}

describe('session/opened and session/ending', () => {
  it('open tells startup then resume; end waits for the listeners, which still append, then closes', async () => {
    const ctx = await service()
    const seen: string[] = []
    ctx.on('session/opened', (session, { source }) => { seen.push(`${session.id}:${source}`) })
    ctx.on('session/opened', () => { throw new Error('a broken listener') })
    ctx.on('session/opened', () => Promise.reject(new Error('a broken async listener')))
    ctx.on('session/ending', async (session: Session, { reason }) => {
      await new Promise((resolve) => setTimeout(resolve, 50))
      await session.append('test/ending' as any, { reason })
    })
    ctx.on('session/ending', () => { throw new Error('broken too') })
    const s = ctx.sessions.open({ id: 'one' })
    expect(ctx.sessions.open({ id: 'one' })).toBe(s)
    await ctx.sessions.end(s, { reason: 'done' })
    const lines = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((e) => [e.type, e.data])).toEqual([['test/ending', { reason: 'done' }]])
    await expect(s.append('late' as any, {})).rejects.toThrow()
    ctx.sessions.open({ id: 'one' }).close()
    expect(seen).toEqual(['one:startup', 'one:resume'])
    await ctx.stop()
  })
})
