import { afterEach, describe, expect, it } from 'vitest'
import { Session } from '@dsh/kernel'
import { grantKey } from '@dsh/approval'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { approvalEvents, canMountTmpfs, fillUp, setup, smallDisk, type Setup } from './helpers.js'

let s: Setup | undefined
afterEach(async () => { await s?.cleanup(); s = undefined })

/** A listener that answers `answer` and counts its calls. */
function ui(setup: Setup, answer: () => unknown = () => ({ kind: 'approved', grant: 'session' })) {
  const counter = { calls: 0 }
  setup.plugin('ui', (ctx) => { ctx.on('approval/request', () => { counter.calls++; return answer() as any }) })
  return counter
}

describe('session grants', () => {
  it('an approval for the session creates a logged grant; the same call is then approved without asking', async () => {
    s = await setup()
    const counter = ui(s)
    const first = await s.approval.request({ exec: s.exec('bash', { command: 'npm test', timeout: 60 }) })
    expect(first).toEqual({ kind: 'approved', grant: 'session' })
    const grants = s.approval.grants(s.session)
    expect(grants).toHaveLength(1)
    expect(grants[0]).toMatchObject({ name: 'bash', arguments: { command: 'npm test', timeout: 60 } })
    expect(Object.isFrozen(grants[0].arguments)).toBe(true)

    const again = await s.approval.request({ exec: s.exec('bash', { command: 'npm test', timeout: 60 }) })
    expect(again).toEqual({ kind: 'approved', grant: 'session' })
    expect(counter.calls).toBe(1)

    const events = approvalEvents(s.session.path)
    expect(events.map((e) => e.type)).toEqual([
      'approval/asked', 'approval/decided', 'approval/granted',
      'approval/asked', 'approval/decided',
    ])
    expect(events[2].data).toMatchObject({ grantId: grants[0].id, requestId: events[0].data.id, name: 'bash', arguments: { command: 'npm test', timeout: 60 } })
    expect(events[1].data.grantId).toBe(grants[0].id)
    // the second request is still logged first, naming the grant that answers it
    expect(events[3].data.grantId).toBe(grants[0].id)
    expect(events[4].data).toMatchObject({ by: 'grant', grantId: grants[0].id, outcome: { kind: 'approved', grant: 'session' } })
  })

  it('matches arguments with their keys in another order (canonical JSON)', async () => {
    s = await setup()
    const counter = ui(s)
    await s.approval.request({ exec: s.exec('edit', { file_path: 'a.ts', edit: { old: 'x', new: 'y' } }) })
    const outcome = await s.approval.request({ exec: s.exec('edit', { edit: { new: 'y', old: 'x' }, file_path: 'a.ts' }) })
    expect(outcome).toEqual({ kind: 'approved', grant: 'session' })
    expect(counter.calls).toBe(1)
    expect(grantKey('edit', { b: 1, a: [1, { d: 2, c: 3 }] }, undefined)).toBe(grantKey('edit', { a: [1, { c: 3, d: 2 }], b: 1 }, undefined))
  })

  const wider: Array<[string, string, object]> = [
    ['another value', 'bash', { command: 'rm -rf /' }],
    ['an extra key', 'bash', { command: 'ls', cwd: '/' }],
    ['a missing key', 'bash', {}],
    ['a number where a string was', 'bash', { command: 1 }],
    ['array order', 'multi', { xs: [2, 1] }],
    ['another tool with the same arguments', 'sh', { command: 'ls' }],
    ['a case change', 'Bash', { command: 'ls' }],
  ]
  for (const [what, name, args] of wider) {
    it(`never widens: ${what} asks again`, async () => {
      s = await setup()
      let answer: unknown = { kind: 'approved', grant: 'session' }
      const counter = ui(s, () => answer)
      await s.approval.request({ exec: s.exec('bash', { command: 'ls' }) })
      await s.approval.request({ exec: s.exec('multi', { xs: [1, 2] }) })
      answer = { kind: 'denied', reason: 'not this one' }
      const outcome = await s.approval.request({ exec: s.exec(name, args as any) })
      expect(outcome).toEqual({ kind: 'denied', reason: 'not this one' })
      expect(counter.calls).toBe(3)
    })
  }

  it('an approval once creates no grant', async () => {
    s = await setup()
    const counter = ui(s, () => ({ kind: 'approved', grant: 'once' }))
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    expect(counter.calls).toBe(2)
    expect(s.approval.grants(s.session)).toEqual([])
  })

  it('a revoked grant no longer applies, and the revocation is logged', async () => {
    s = await setup()
    let answer: unknown = { kind: 'approved', grant: 'session' }
    const counter = ui(s, () => answer)
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    const [grant] = s.approval.grants(s.session)
    expect(await s.approval.revoke(s.session, grant.id, 'user changed their mind')).toBe(true)
    expect(s.approval.grants(s.session)).toEqual([])
    answer = { kind: 'denied', reason: 'no longer' }
    expect(await s.approval.request({ exec: s.exec('t', { a: 1 }) })).toEqual({ kind: 'denied', reason: 'no longer' })
    expect(counter.calls).toBe(2)
    const revoked = approvalEvents(s.session.path).find((e) => e.type === 'approval/revoked')
    expect(revoked?.data).toEqual({ grantId: grant.id, name: 't', reason: 'user changed their mind' })
    // an unknown or already revoked id changes nothing
    expect(await s.approval.revoke(s.session, grant.id)).toBe(false)
    expect(await s.approval.revoke(s.session, '__proto__')).toBe(false)
  })

  it.skipIf(!canMountTmpfs)('a revocation that cannot be logged (full disk) still removes the grant, and rejects', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'dsh-approval-disk-'))
    const disk = smallDisk(parent)
    try {
      s = await setup({}, { sessionDir: disk.dir })
      const counter = ui(s)
      await s.approval.request({ exec: s.exec('t', { a: 1 }) })
      const [grant] = s.approval.grants(s.session)
      fillUp(join(disk.dir, 'filler'), 0)
      fillUp(s.session.path)
      await expect(s.approval.revoke(s.session, grant.id)).rejects.toSatisfy((e: any) => e.code === 'SESSION_WRITE_FAILED')
      expect(s.approval.grants(s.session)).toEqual([])
      // and the call is not approved from the grant any more (it cannot even be logged: denied)
      expect((await s.approval.request({ exec: s.exec('t', { a: 1 }) })).kind).toBe('denied')
      expect(counter.calls).toBe(1)
    } finally {
      await s?.cleanup()
      s = undefined
      disk.unmount()
      rmSync(parent, { recursive: true, force: true })
    }
  })

  it('policy never beats a grant: a session switched to full-access denies the granted call', async () => {
    s = await setup()
    const counter = ui(s)
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    expect(s.approval.grants(s.session)).toHaveLength(1)
    await s.approval.setPreset(s.session, 'full-access')
    const outcome = await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    expect(outcome).toMatchObject({ kind: 'denied', reason: expect.stringMatching(/never/) })
    expect(counter.calls).toBe(1)
    const events = approvalEvents(s.session.path)
    expect(events.at(-2)?.data.grantId).toBeUndefined()
    expect(events.at(-1)?.data).toMatchObject({ by: 'policy' })
  })

  it('grants are per session: another session asks again, a reopened one keeps what its log granted', async () => {
    s = await setup()
    const counter = ui(s)
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    const other = new Session(s.dir, { id: 'other' })
    other.beginTurn()
    await s.approval.request({ exec: { ...s.exec('t', { a: 1 }), session: other } })
    expect(counter.calls).toBe(2)
    other.close()

    const granted = s.approval.grants(s.session)
    s.session.close()
    const reopened = new Session(s.dir, { id: 's' })
    reopened.beginTurn()
    expect(s.approval.grants(reopened).map((g) => [g.id, g.name, g.arguments])).toEqual(granted.map((g) => [g.id, g.name, g.arguments]))
    expect(await s.approval.request({ exec: { ...s.exec('t', { a: 1 }), session: reopened } })).toEqual({ kind: 'approved', grant: 'session' })
    expect(counter.calls).toBe(2)
    // wider arguments are still another request
    await s.approval.request({ exec: { ...s.exec('t', { a: 2 }), session: reopened } })
    expect(counter.calls).toBe(3)
    reopened.close()
  })

  it('a grant revoked before the session was closed stays revoked when it is reopened', async () => {
    s = await setup()
    const counter = ui(s)
    await s.approval.request({ exec: s.exec('t', { a: 1 }) })
    await s.approval.request({ exec: s.exec('t', { a: 2 }) })
    const [first] = s.approval.grants(s.session)
    expect(await s.approval.revoke(s.session, first.id)).toBe(true)
    s.session.close()
    const reopened = new Session(s.dir, { id: 's' })
    reopened.beginTurn()
    expect(s.approval.grants(reopened).map((g) => g.arguments)).toEqual([{ a: 2 }])
    await s.approval.request({ exec: { ...s.exec('t', { a: 1 }), session: reopened } })
    expect(counter.calls).toBe(3)
    reopened.close()
  })

  it('a malformed approval/granted line in the log grants nothing', async () => {
    s = await setup()
    const counter = ui(s, () => ({ kind: 'denied', reason: 'no' }))
    await s.session.append('approval/granted' as any, { grantId: 'g1', name: 't', arguments: 'not an object' })
    await s.session.append('approval/granted' as any, { name: 't', arguments: { a: 1 } })
    s.session.close()
    const reopened = new Session(s.dir, { id: 's' })
    reopened.beginTurn()
    expect(s.approval.grants(reopened)).toEqual([])
    expect((await s.approval.request({ exec: { ...s.exec('t', { a: 1 }), session: reopened } })).kind).toBe('denied')
    expect(counter.calls).toBe(1)
    reopened.close()
  })

  it('a grant for a call under an explicit sandbox mode is bound to that mode', async () => {
    s = await setup()
    let answer: unknown = { kind: 'approved', grant: 'session' }
    const counter = ui(s, () => answer)
    const escalated = await s.approval.request({ exec: s.exec('bash', { command: 'make' }), sandboxMode: 'workspace-write' })
    expect(escalated).toEqual({ kind: 'approved', grant: 'session', sandboxMode: 'workspace-write' })
    expect(s.approval.grants(s.session)[0].sandboxMode).toBe('workspace-write')
    expect(await s.approval.request({ exec: s.exec('bash', { command: 'make' }), sandboxMode: 'workspace-write' }))
      .toEqual({ kind: 'approved', grant: 'session', sandboxMode: 'workspace-write' })
    expect(counter.calls).toBe(1)
    answer = { kind: 'denied', reason: 'asked again' }
    // the same command under another mode, or without one, is another request
    expect((await s.approval.request({ exec: s.exec('bash', { command: 'make' }), sandboxMode: 'danger-full-access' })).kind).toBe('denied')
    expect((await s.approval.request({ exec: s.exec('bash', { command: 'make' }) })).kind).toBe('denied')
    expect(counter.calls).toBe(3)
  })
})
