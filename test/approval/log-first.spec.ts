import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '@dsh/kernel'
import { approvalEvents, canMountTmpfs, fillUp, onDisk, setup, smallDisk, type Setup } from './helpers.js'

let s: Setup | undefined
afterEach(async () => { await s?.cleanup(); s = undefined })

describe('log-first', () => {
  it('has approval/asked on disk before the listener runs, and approval/decided after', async () => {
    s = await setup()
    const path = s.session.path
    let seenInListener: Array<{ type: string; data: any }> = []
    s.plugin('ui', (ctx) => {
      ctx.on('approval/request', () => {
        // read the FILE, not the in-memory list: the event must already be written
        seenInListener = onDisk(path)
        return { kind: 'approved', grant: 'once' }
      })
    })
    const exec = s.exec('bash', { command: 'ls', cwd: '/w' })
    const outcome = await s.approval.request({ exec, reason: 'runs a command', sandboxMode: 'workspace-write' })
    expect(outcome).toEqual({ kind: 'approved', grant: 'once', sandboxMode: 'workspace-write' })

    const asked = seenInListener.filter((e) => e.type === 'approval/asked')
    expect(asked).toHaveLength(1)
    expect(asked[0].data).toMatchObject({
      callId: exec.callId,
      name: 'bash',
      arguments: { command: 'ls', cwd: '/w' },
      reason: 'runs a command',
      sandboxMode: 'workspace-write',
      policy: 'ask',
    })
    expect(typeof asked[0].data.id).toBe('string')
    expect(seenInListener.some((e) => e.type === 'approval/decided')).toBe(false)

    const after = approvalEvents(path)
    expect(after.map((e) => e.type)).toEqual(['approval/asked', 'approval/decided'])
    expect(after[1].data).toEqual({
      id: asked[0].data.id,
      callId: exec.callId,
      name: 'bash',
      outcome: { kind: 'approved', grant: 'once', sandboxMode: 'workspace-write' },
      by: 'listener',
    })
    expect(after[1].seq).toBeGreaterThan(after[0].seq)
  })

  it('denies without consulting anyone when approval/asked cannot be written (session closed)', async () => {
    s = await setup()
    let called = 0
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
    const exec = s.exec('t')
    s.session.close()
    const outcome = await s.approval.request({ exec })
    expect(outcome.kind).toBe('denied')
    expect((outcome as any).reason).toMatch(/could not be logged/)
    expect(called).toBe(0)
  })

  it('denies an approved request when approval/decided cannot be written (session closed in the listener)', async () => {
    s = await setup()
    const session = s.session
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { session.close(); return { kind: 'approved', grant: 'session' } }) })
    const exec = s.exec('t', { a: 1 })
    const outcome = await s.approval.request({ exec })
    expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(/decision could not be logged/) })
    expect(s.approval.grants(session)).toEqual([])
  })

  describe.skipIf(!canMountTmpfs)('on a full disk (a real 16 KiB tmpfs)', () => {
    it('denies when approval/asked hits ENOSPC, and never consults the listener', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dsh-approval-disk-'))
      const disk = smallDisk(dir)
      try {
        s = await setup({}, { sessionDir: disk.dir })
        let called = 0
        s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
        await new Promise((r) => setImmediate(r)) // turn/begin written
        fillUp(join(disk.dir, 'filler'), 0)
        fillUp(s.session.path)
        const outcome = await s.approval.request({ exec: s.exec('t', { big: 'x'.repeat(2000) }) })
        expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(/could not be logged.*(ENOSPC|no space)/i) })
        expect(called).toBe(0)
        expect(approvalEvents(s.session.path)).toEqual([])
      } finally {
        await s?.cleanup()
        s = undefined
        disk.unmount()
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('denies an approval whose approval/decided hits ENOSPC, and creates no grant', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dsh-approval-disk-'))
      const disk = smallDisk(dir)
      try {
        s = await setup({}, { sessionDir: disk.dir })
        const path = s.session.path
        let called = 0
        s.plugin('ui', (ctx) => {
          ctx.on('approval/request', () => {
            called++
            // the disk fills up while the human is deciding
            fillUp(join(disk.dir, 'filler'), 0)
            fillUp(path)
            return { kind: 'approved', grant: 'session' }
          })
        })
        const outcome = await s.approval.request({ exec: s.exec('t', { a: 1 }) })
        expect(called).toBe(1)
        expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(/decision could not be logged/) })
        expect(s.approval.grants(s.session)).toEqual([])
        expect(approvalEvents(path).map((e) => e.type)).toEqual(['approval/asked'])
      } finally {
        await s?.cleanup()
        s = undefined
        disk.unmount()
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
})

describe('policy never', () => {
  it('denies with an approving listener registered, never calling it, and still logs', async () => {
    s = await setup({ policy: 'never' })
    let called = 0
    s.plugin('eager', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'session' } }, true) })
    const outcome = await s.approval.request({ exec: s.exec('t'), reason: 'r' })
    expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(/never/) })
    expect(called).toBe(0)
    const events = approvalEvents(s.session.path)
    expect(events.map((e) => e.type)).toEqual(['approval/asked', 'approval/decided'])
    expect(events[0].data.policy).toBe('never')
    expect(events[1].data).toMatchObject({ by: 'policy', outcome: { kind: 'denied' } })
  })

  it('twin: the same listener under ask is consulted and approves', async () => {
    s = await setup({ policy: 'ask' })
    let called = 0
    s.plugin('eager', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
    expect(await s.approval.request({ exec: s.exec('t') })).toEqual({ kind: 'approved', grant: 'once' })
    expect(called).toBe(1)
  })
})

describe('open turn', () => {
  it('is unavailable without an open turn, consulting nobody, and says so in the log', async () => {
    s = await setup()
    let called = 0
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
    s.session.endTurn()
    const outcome = await s.approval.request({ exec: s.exec('t') })
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/open turn/) })
    expect(called).toBe(0)
    expect(approvalEvents(s.session.path).at(-1)?.data.by).toBe('no-turn')
    s.session.beginTurn()
    expect((await s.approval.request({ exec: s.exec('t') })).kind).toBe('approved')
    expect(called).toBe(1)
  })
})

describe('malformed requests', () => {
  it('denies a request without a real session, logging nowhere', async () => {
    s = await setup()
    const fake = { append: async () => ({}), events: () => [], inTurn: true } as unknown as Session
    const outcome = await s.approval.request({ exec: { ...s.exec('t'), session: fake } })
    expect(outcome.kind).toBe('denied')
    expect(await s.approval.request(undefined as any)).toMatchObject({ kind: 'denied' })
  })

  it('denies (logged, nobody asked) arguments that are not JSON, an unknown sandbox mode, a non-string reason', async () => {
    s = await setup()
    let called = 0
    s.plugin('ui', (ctx) => { ctx.on('approval/request', () => { called++; return { kind: 'approved', grant: 'once' } }) })
    const cases: Array<[any, RegExp]> = [
      [{ exec: { ...s.exec('t'), arguments: { n: 10n } } }, /BigInt/],
      [{ exec: s.exec('t'), sandboxMode: 'root' }, /unknown sandbox mode "root"/],
      [{ exec: s.exec('t'), reason: 42 }, /reason must be a string/],
      [{ exec: { ...s.exec('t'), arguments: [1] } }, /must be an object/],
    ]
    for (const [request, message] of cases) {
      const outcome = await s.approval.request(request)
      expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(message) })
    }
    expect(called).toBe(0)
    const decided = approvalEvents(s.session.path).filter((e) => e.type === 'approval/decided')
    expect(decided.map((e) => e.data.by)).toEqual(['invalid', 'invalid', 'invalid', 'invalid'])
  })
})
