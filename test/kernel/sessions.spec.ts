import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { execFileSync } from 'node:child_process'
import { appendFileSync, fstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { declareDurable, KernelError, Session } from '@dsh/kernel'

// the sandbox service declares its mode event durable when loaded; a kernel-only test does it itself
declareDurable('sandbox/mode' as any)

let dir: string

// a full disk is made real with a 16 KiB tmpfs, which needs root
const canMountTmpfs = (() => {
  if (process.getuid?.() !== 0) {
    console.warn('sessions.spec: not root, so the full-disk test is skipped (it mounts a small tmpfs)')
    return false
  }
  return true
})()
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-sessions-')) })
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))

describe('Session', () => {
  it('appends typed events as JSON lines and resolves once written', async () => {
    const session = new Session(dir, { id: 's1' })
    const event = await session.append('turn/begin', { turn: 7 })
    expect(event).toMatchObject({ seq: 1, type: 'turn/begin', data: { turn: 7 } })
    expect(lines(session.path)).toEqual([event])
    expect(session.events()).toEqual([event])
    expect(session.path).toBe(join(dir, 's1.jsonl'))
  })

  it('keeps order and sequence numbers across a batch', async () => {
    const session = new Session(dir, { id: 'batch' })
    const events = await Promise.all(Array.from({ length: 100 }, (_, i) => session.append('turn/begin', { turn: i })))
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect(lines(session.path).map((e) => e.data.turn)).toEqual(Array.from({ length: 100 }, (_, i) => i))
  })

  it('rejects events that cannot be serialized without writing anything', async () => {
    const session = new Session(dir, { id: 'bad' })
    const cyclic: any = {}
    cyclic.self = cyclic
    await expect(session.append('turn/begin', cyclic)).rejects.toSatisfy((e) => KernelError.is(e, 'INVALID_EVENT'))
    await session.append('turn/begin', { turn: 1 })
    expect(lines(session.path)).toHaveLength(1)
    expect(lines(session.path)[0].seq).toBe(1)
  })

  it('tracks turns synchronously', async () => {
    const session = new Session(dir, { id: 'turns' })
    expect(session.inTurn).toBe(false)
    session.beginTurn()
    expect(session.inTurn).toBe(true)
    session.endTurn()
    expect(session.inTurn).toBe(false)
    await session.append('turn/begin', { turn: 99 })
    expect(session.events().map((e) => e.type)).toEqual(['turn/begin', 'turn/end', 'turn/begin'])
  })

  it('recovers events on reopen and continues the sequence', async () => {
    const first = new Session(dir, { id: 'again' })
    await first.append('turn/begin', { turn: 1 })
    await first.append('turn/end', { turn: 1 })
    first.close()
    const second = new Session(dir, { id: 'again' })
    expect(second.events().map((e) => e.seq)).toEqual([1, 2])
    expect((await second.append('turn/begin', { turn: 2 })).seq).toBe(3)
  })

  it('cuts a torn last line off and reports it, never fatal', async () => {
    const first = new Session(dir, { id: 'torn' })
    await first.append('turn/begin', { turn: 1 })
    first.close()
    appendFileSync(first.path, '{"seq":2,"time":1,"type":"turn/e')
    const second = new Session(dir, { id: 'torn' })
    expect(second.recovery.droppedBytes).toBeGreaterThan(0)
    expect(second.recovery.reason).toMatch(/torn last line 2/)
    expect(second.events().map((e) => e.type)).toEqual(['turn/begin', 'session/recovered'])
    await second.flush()
    const onDisk = lines(second.path)
    expect(onDisk.map((e) => e.type)).toEqual(['turn/begin', 'session/recovered'])
    expect(onDisk[1].seq).toBe(2)
  })

  it('skips and reports an unparsable line in the middle, keeping the rest', () => {
    const path = join(dir, 'mid.jsonl')
    writeFileSync(path, '{"seq":1,"time":1,"type":"turn/begin","data":{"turn":1}}\nnot json\n{"seq":2,"time":1,"type":"turn/end","data":{"turn":1}}\n')
    const session = new Session(dir, { id: 'mid' })
    expect(session.events().map((e) => e.seq)).toEqual([1, 2, 3])
    expect(session.events()[2].type).toBe('session/recovered')
    expect(session.recovery.badLines).toEqual([2])
  })

  it('refuses ids that are not plain names', () => {
    for (const id of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(200)]) {
      expect(() => new Session(dir, { id })).toThrow(KernelError)
    }
  })

  it('refuses a log path that is a symlink or not a regular file', () => {
    symlinkSync('/dev/full', join(dir, 'dev.jsonl'))
    expect(() => new Session(dir, { id: 'dev' })).toThrow(/not a regular file/)
    writeFileSync(join(dir, 'real.txt'), '')
    symlinkSync(join(dir, 'real.txt'), join(dir, 'link.jsonl'))
    expect(() => new Session(dir, { id: 'link' })).toThrow(KernelError)
  })

  it.skipIf(!canMountTmpfs)('drops every event of a failed batch, posted ones too, and refuses what follows', async () => {
    const full = join(dir, 'small2')
    mkdirSync(full)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', full])
    let session: Session | undefined
    try {
      session = new Session(full, { id: 'full' })
      await session.append('turn/begin', { turn: 1 })
      writeFileSync(join(full, 'filler'), Buffer.alloc(8 * 1024))
      session.post('turn/end', { turn: 1, pad: 'x'.repeat(8 * 1024) } as any)
      // asked for before the write fails: the event is in the list, and must still leave it
      expect(session.events().map((e) => e.seq)).toEqual([1, 2])
      expect(() => session!.write('turn/begin', { turn: 2 })).toThrow(/cannot append/)
      expect(session.failure?.code).toBe('SESSION_WRITE_FAILED')
      expect(session.events().map((e) => e.seq)).toEqual([1])
      expect(() => session!.post('turn/end', { turn: 2 })).toThrow(/cannot append/)
      await expect(session.flush()).rejects.toSatisfy((e) => KernelError.is(e, 'SESSION_WRITE_FAILED'))
    } finally {
      session?.close()
      execFileSync('umount', [full])
    }
  })

  it.skipIf(!canMountTmpfs)('fails every append once the disk is full', async () => {
    const full = join(dir, 'small')
    mkdirSync(full)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', full])
    try {
      writeFileSync(join(full, 'filler'), Buffer.alloc(12 * 1024))
      const session = new Session(full, { id: 'full' })
      const big = { turn: 1, pad: 'x'.repeat(8 * 1024) } as any
      const first = session.append('turn/begin', big)
      await expect(first).rejects.toSatisfy((e) => KernelError.is(e, 'SESSION_WRITE_FAILED'))
      await expect(session.append('turn/end', { turn: 1 })).rejects.toSatisfy((e) => KernelError.is(e, 'SESSION_WRITE_FAILED'))
      expect(session.failure?.code).toBe('SESSION_WRITE_FAILED')
      expect(session.events()).toHaveLength(0)
      session.close()
    } finally {
      execFileSync('umount', [full])
    }
  })

  it('fsyncs durable classes before resolving, and only those', async () => {
    // what an fsync buys (the line outlives a power cut) cannot be seen from a test; its call,
    // on the log's file, and the append waiting for it, can: node's fsync is held until released
    const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs')
    const realFsync = fs.fsync
    const held: Array<{ fd: number; release: () => void }> = []
    fs.fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      held.push({ fd, release: () => realFsync(fd, callback) })
    }) as typeof fs.fsync
    syncBuiltinESMExports()
    try {
      const session = new Session(dir, { id: 'durable' })
      await session.append('turn/begin', { turn: 1 })
      expect(held).toHaveLength(0)
      let resolved = false
      const durable = session.append('sandbox/mode' as any, { mode: 'read-only' }).then(() => { resolved = true })
      await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5_000 })
      expect(fstatSync(held[0].fd).ino).toBe(statSync(session.path).ino)
      expect(lines(session.path).map((e) => e.type)).toEqual(['turn/begin', 'sandbox/mode'])
      // written to the page cache, but not resolved while its fsync is under way
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(resolved).toBe(false)
      held[0].release()
      await durable
      expect(resolved).toBe(true)
      session.close()
    } finally {
      fs.fsync = realFsync
      syncBuiltinESMExports()
    }
  })

  it('writes posted events in order with the next append, and flush waits for them', async () => {
    const session = new Session(dir, { id: 'later' })
    session.post('turn/end', { turn: 1 })
    expect(session.events().map((e) => e.type)).toEqual(['turn/end'])
    await session.append('turn/begin', { turn: 2 })
    expect(lines(session.path).map((e) => e.type)).toEqual(['turn/end', 'turn/begin'])
    session.post('turn/end', { turn: 2 })
    await session.flush()
    expect(lines(session.path)).toHaveLength(3)
  })

  it('writes each line exactly as JSON.stringify would write the event', async () => {
    const session = new Session(dir, { id: 'envelope' })
    await session.append('odd/"type"\\' as any, { text: 'line\nbreak \u2028 "quoted"', n: -0, nested: [{ a: null }] })
    await session.append('turn/begin', { turn: 1 })
    const text = readFileSync(session.path, 'utf8').split('\n').filter(Boolean)
    expect(text).toEqual(session.events().map((event) => JSON.stringify(event)))
  })

  it('refuses data that is not a JSON object with INVALID_EVENT, in every append form', async () => {
    const session = new Session(dir, { id: 'nodata' })
    await expect(session.append('turn/begin', undefined as any)).rejects.toSatisfy((e) => KernelError.is(e, 'INVALID_EVENT'))
    expect(() => session.write('turn/begin', { turn: 10n } as any)).toThrow(/turn\/begin cannot be serialized/)
    expect(() => session.post('turn/begin', { turn: 10n } as any)).toThrow(/turn\/begin cannot be serialized/)
    expect(session.events()).toHaveLength(0)
    expect(session.failure).toBeUndefined()
    await session.append('turn/begin', { turn: 1 })
    expect(lines(session.path).map((e) => e.seq)).toEqual([1])
  })

  it('write returns once its line is in the file; posted and queued lines go with it, in order', async () => {
    const session = new Session(dir, { id: 'hot' })
    session.post('turn/end', { turn: 0 })
    const queued = session.append('turn/begin', { turn: 1 })
    expect(readFileSync(session.path, 'utf8')).toBe('')
    session.write('turn/begin', { turn: 2 })
    expect(lines(session.path).map((e) => e.data.turn)).toEqual([0, 1, 2])
    await queued
    session.write('turn/end', { turn: 3 })
    expect(lines(session.path).map((e) => e.seq)).toEqual([1, 2, 3, 4])
  })

  it('events() holds what the file holds, in order, for every append form', async () => {
    const session = new Session(dir, { id: 'mixed' })
    const data = { turn: 1, nested: { list: [1, 'two', null] } } as any
    session.write('turn/begin', data)
    const appended = await session.append('turn/end', { turn: 1 })
    session.post('turn/begin', { turn: 2 })
    await session.flush()
    const events = session.events()
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3])
    expect(events[0].data).toEqual(data)
    expect(events[1]).toBe(appended)
    expect(events.map((e) => JSON.stringify(e))).toEqual(lines(session.path).map((e) => JSON.stringify(e)))
    // asking again gives the same objects, and later lines join them
    session.write('turn/end', { turn: 2 })
    expect(session.events()[0]).toBe(events[0])
    expect(session.events().map((e) => e.seq)).toEqual([1, 2, 3, 4])
  })

  it('keeps many hot-path lines, long and multi-byte ones too, and gives each back exactly', async () => {
    const session = new Session(dir, { id: 'many' })
    const long = 'é'.repeat(700_000)
    for (let i = 0; i < 3000; i++) session.post('turn/begin', { turn: i, text: i % 1000 === 999 ? long : `ü${i}` } as any)
    session.write('turn/end', { turn: -1 })
    const events = session.events()
    expect(events).toHaveLength(3001)
    expect(events[999].data).toEqual({ turn: 999, text: long })
    expect(events[1500].data).toEqual({ turn: 1500, text: 'ü1500' })
    expect(events.map((e) => JSON.stringify(e))).toEqual(lines(session.path).map((e) => JSON.stringify(e)))
  })

  it('write refuses a closed session and writes nothing', () => {
    const session = new Session(dir, { id: 'closedwrite' })
    session.close()
    expect(() => session.write('turn/begin', { turn: 1 })).toThrow(/closed/)
    expect(readFileSync(session.path, 'utf8')).toBe('')
  })

  it('writes a posted line on the next turn of the event loop when nothing else is written', async () => {
    const session = new Session(dir, { id: 'posted' })
    for (let i = 0; i < 3; i++) session.post('turn/begin', { turn: i })
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines(session.path).map((e) => e.data.turn)).toEqual([0, 1, 2])
  })

  it('flush waits for the fsync of a durable event still under way', async () => {
    const session = new Session(dir, { id: 'syncing' })
    const durable = session.append('sandbox/mode' as any, { mode: 'read-only' })
    let synced = false
    durable.then(() => { synced = true })
    await session.flush()
    await Promise.resolve()
    expect(synced).toBe(true)
  })

  it('rejects appends after close', async () => {
    const session = new Session(dir, { id: 'closed' })
    session.close()
    await expect(session.append('turn/begin', { turn: 1 })).rejects.toSatisfy((e) => KernelError.is(e, 'SESSION_CLOSED'))
  })
})
