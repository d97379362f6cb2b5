/**
 * The session's in-memory window is bounded in bytes as well as in count: a few hundred results
 * of a megabyte or more are not all held (issue 29: 300 reads of a 900 KB file held ~540 MB).
 * Lines with a buffer of their own go first, wherever they are; shorter ones go oldest first.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RECENT_BYTES, Session, type SessionEvent } from '@dsh/kernel'

/** the most bytes of others the window holds: trimmed back to RECENT_BYTES once a quarter more are held */
const MOST = RECENT_BYTES + RECENT_BYTES / 4
/** what the line store may hold beyond the window's lines: the last buffer's free room and eight spares */
const STORE_SLACK = 9 * 256 * 1024

let dir: string
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-session-bytes-')) })
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const fileEvents = (path: string): SessionEvent[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
/** the bytes of an event's line in the log, its newline included */
const lineBytes = (event: SessionEvent) => Buffer.byteLength(JSON.stringify(event)) + 1
const bytesOf = (events: readonly SessionEvent[]) => events.reduce((n, event) => n + lineBytes(event), 0)
/** what the session's line store holds: its buffers, and the large lines it keeps as strings */
function storeBytes(session: Session): number {
  const store = (session as any).window.lines
  const large = [...(store.large as Map<number, string>).values()].reduce((n, line) => n + Buffer.byteLength(line), 0)
  return (store.chunks as Buffer[]).reduce((n, chunk) => n + chunk.length, 0) + large
}

/** one event of about `bytes`, appended the way `i` picks (the hot path's two ways and `append`) */
function big(session: Session, i: number, bytes: number): void {
  const data = { i, text: String.fromCharCode(97 + (i % 26)).repeat(bytes) } as any
  if (i % 3 === 0) session.write('tool/result' as any, data)
  else if (i % 3 === 1) session.post('tool/result' as any, data)
  else void session.append('tool/result' as any, data)
}

describe('the in-memory window of a session, in bytes', () => {
  it('lets the oldest large lines go first (from the line store at once); the small events around them all stay; the file holds every one', async () => {
    const session = new Session(dir, { id: 'large' })
    // 60 results of 400 KB (24 MB, over RECENT_BYTES), each after a small event
    for (let i = 0; i < 60; i++) {
      session.post('turn/begin', { turn: i })
      big(session, i, 400_000)
    }
    await session.flush()
    // not read yet: the lines are in the line store, which let the large ones go
    expect(storeBytes(session)).toBeLessThanOrEqual(MOST + STORE_SLACK)
    const held = session.events()
    const all = fileEvents(session.path)
    expect(all).toHaveLength(120)
    expect(bytesOf(held)).toBeLessThanOrEqual(MOST)
    expect(bytesOf(held)).toBeGreaterThan(RECENT_BYTES / 2)
    // every small event is still there; the large ones held are the newest, in order
    expect(held.filter((e) => e.type === 'turn/begin')).toEqual(all.filter((e) => e.type === 'turn/begin'))
    const large = all.filter((e) => e.type === 'tool/result')
    const heldLarge = held.filter((e) => e.type === 'tool/result')
    expect(heldLarge.length).toBeLessThan(large.length)
    expect(heldLarge).toEqual(large.slice(-heldLarge.length))
    expect(held.map((e) => e.seq)).toEqual([...held.map((e) => e.seq)].sort((a, b) => a - b))
    session.close()
  })

  it('lets events read as objects go as well, when a reader asks for events() after every append (as the sandbox mode tracker does)', async () => {
    const session = new Session(dir, { id: 'parsed' })
    for (let i = 0; i < 60; i++) {
      big(session, i, 1_000_000)
      session.events()
    }
    await session.flush()
    const held = session.events()
    expect(bytesOf(held)).toBeLessThanOrEqual(MOST)
    expect(held.at(-1)?.data).toMatchObject({ i: 59 })
    expect(fileEvents(session.path)).toHaveLength(60)
    session.close()
  })

  it('lets lines that share buffers go oldest first: the newest are held, within the bound', async () => {
    const session = new Session(dir, { id: 'medium' })
    // 250 events of 100 KB (25 MB): too short for a buffer of their own
    for (let i = 0; i < 250; i++) big(session, i, 100_000)
    await session.flush()
    expect(storeBytes(session)).toBeLessThanOrEqual(MOST + STORE_SLACK)
    const held = session.events()
    const all = fileEvents(session.path)
    expect(bytesOf(held)).toBeLessThanOrEqual(MOST)
    expect(bytesOf(held)).toBeGreaterThanOrEqual(RECENT_BYTES - 200_000)
    expect(held).toEqual(all.slice(-held.length))
    session.close()
  })

  it('reopens a session of large events with the window only', async () => {
    const first = new Session(dir, { id: 'reopened' })
    for (let i = 0; i < 40; i++) big(first, i, 1_000_000)
    await first.flush()
    first.close()
    const again = new Session(dir, { id: 'reopened' })
    const held = again.events()
    expect(bytesOf(held)).toBeLessThanOrEqual(RECENT_BYTES)
    expect(held.at(-1)?.data).toMatchObject({ i: 39 })
    // numbering goes on after the newest event of the file
    expect((await again.append('turn/end', { turn: 0 })).seq).toBe(41)
    again.close()
  })
})
