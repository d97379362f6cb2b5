import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { declareDurable, RECENT_EVENTS, Session, type SessionEvent } from '@dsh/kernel'
import { createTestKernel } from 'dsh/testing'

// the sandbox service declares its mode event durable when loaded; a kernel-only test does it itself
declareDurable('sandbox/mode' as any)

/** the most others the window holds: it is trimmed back to RECENT_EVENTS once a quarter more are held */
const MOST = RECENT_EVENTS + RECENT_EVENTS / 4

let dir: string
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-session-window-')) })
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const fileEvents = (path: string): SessionEvent[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
const seqs = (events: readonly SessionEvent[]) => events.map((event) => event.seq)

/** `n` non-durable events through each of the three ways of appending */
async function fill(session: Session, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) session.write('turn/begin', { turn: i })
    else if (i % 3 === 1) session.post('turn/end', { turn: i })
    else void session.append('turn/begin', { turn: i })
  }
  await session.flush()
}

describe('the in-memory window of a session', () => {
  it('holds every durable event and the newest RECENT_EVENTS others, in order; the file holds them all', async () => {
    const session = new Session(dir, { id: 'long' })
    await session.append('sandbox/mode' as any, { mode: 'workspace-write' })
    await fill(session, RECENT_EVENTS)
    await session.append('sandbox/mode' as any, { mode: 'read-only' })
    await fill(session, 2 * RECENT_EVENTS + 5)
    const held = session.events()
    const all = fileEvents(session.path)
    expect(all).toHaveLength(3 * RECENT_EVENTS + 7)
    const durable = all.filter((event) => event.type === 'sandbox/mode')
    const others = all.filter((event) => event.type !== 'sandbox/mode')
    // between RECENT_EVENTS and a quarter more of the others, always the newest, and both mode events
    const heldOthers = held.filter((event) => event.type !== 'sandbox/mode')
    expect(heldOthers.length).toBeGreaterThanOrEqual(RECENT_EVENTS)
    expect(heldOthers.length).toBeLessThanOrEqual(MOST)
    expect(heldOthers).toEqual(others.slice(-heldOthers.length))
    expect(held.filter((event) => event.type === 'sandbox/mode')).toEqual(durable)
    expect(seqs(held)).toEqual([...seqs(held)].sort((a, b) => a - b))
    session.close()
  })

  it('stays bounded however many events are appended, parsed or not', async () => {
    const session = new Session(dir, { id: 'bounded' })
    for (let round = 0; round < 6; round++) {
      await fill(session, RECENT_EVENTS)
      // reading parses the held lines into events; the next trim must still let them go
      if (round % 2) expect(session.events().length).toBeLessThanOrEqual(MOST)
    }
    expect(session.events().length).toBeLessThanOrEqual(MOST)
    expect(session.events().at(-1)?.seq).toBe(6 * RECENT_EVENTS)
    session.close()
  })

  it('reopens a long session with the window only, its durable events all there', async () => {
    const first = new Session(dir, { id: 'resumed' })
    await first.append('sandbox/mode' as any, { mode: 'workspace-write' })
    await fill(first, 3 * RECENT_EVENTS)
    first.close()
    const again = new Session(dir, { id: 'resumed' })
    const held = again.events()
    expect(held.length).toBeLessThanOrEqual(RECENT_EVENTS + 1)
    expect(held[0]).toMatchObject({ seq: 1, type: 'sandbox/mode', data: { mode: 'workspace-write' } })
    expect(held.at(-1)?.seq).toBe(3 * RECENT_EVENTS + 1)
    expect(again.recovery.events).toBe(held)
    // numbering goes on after the newest event of the file, not the window
    expect((await again.append('turn/end', { turn: 0 })).seq).toBe(3 * RECENT_EVENTS + 2)
    again.close()
  })

  it('lastDurableSeq moves with every durable event and append()\'s others, never with a hot-path line', async () => {
    const session = new Session(dir, { id: 'durable-seq' })
    const start = session.lastDurableSeq
    session.write('turn/begin', { turn: 1 })
    session.post('turn/end', { turn: 1 })
    expect(session.lastDurableSeq).toBe(start)
    const ways = [
      () => session.write('sandbox/mode' as any, { mode: 'read-only' }),
      () => session.post('sandbox/mode' as any, { mode: 'read-only' }),
      () => void session.append('sandbox/mode' as any, { mode: 'read-only' }),
      () => void session.append('turn/begin', { turn: 2 }),
    ]
    for (const way of ways) {
      way()
      const durable = session.events().at(-1)!
      expect(session.lastDurableSeq).toBe(durable.seq)
      session.post('turn/end', { turn: 3 })
      expect(session.lastDurableSeq).toBe(durable.seq)
    }
    await session.flush()
    session.close()
    // reopened: every event recovered is read once, so nothing is newer than the last of them
    const reopened = new Session(dir, { id: 'durable-seq' })
    expect(reopened.lastDurableSeq).toBe(reopened.events().at(-1)!.seq)
    reopened.close()
  })

  it('keeps the sandbox mode a session set long ago, and sees a switch made after the window moved', async () => {
    const k = await createTestKernel()
    try {
      const session = k.ctx.sessions.open({ id: 'modes' })
      await k.ctx.sandbox.setMode(session, 'workspace-write')
      expect(k.ctx.sandbox.resolveMode(session)).toBe('workspace-write')
      await fill(session, 3 * RECENT_EVENTS)
      expect(k.ctx.sandbox.resolveMode(session)).toBe('workspace-write')
      await k.ctx.sandbox.setMode(session, 'read-only')
      await fill(session, 3 * RECENT_EVENTS)
      // a narrowing that scrolled out of the window's others must not be missed (that would widen)
      expect(k.ctx.sandbox.resolveMode(session)).toBe('read-only')
    } finally {
      await k.cleanup()
    }
  })
})
