/**
 * `Session.observe`: every event appended from then on, through every append
 * path, in order; a throwing observer changes nothing; disposing stops it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session, type SessionEvent } from '@dsh/kernel'

const dirs: string[] = []
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }) })

function session(): Session {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-observe-'))
  dirs.push(dir)
  return new Session(dir, { id: 'o' })
}

describe('Session.observe', () => {
  it('tells every event of every append path, in order, as the log holds them', async () => {
    const s = session()
    await s.append('before' as any, { n: 0 })
    const seen: SessionEvent[] = []
    const stop = s.observe((event) => seen.push(event))
    await s.append('a' as any, { n: 1 })
    s.write('b' as any, { n: 2 })
    s.post('c' as any, { n: 3 })
    await s.append('d' as any, { n: 4 })
    s.post('approval/revoked' as any, { grantId: 'g', name: 't' })
    await s.flush()
    stop()
    s.post('e' as any, { n: 5 })
    await s.flush()
    expect(seen.map((e) => e.type)).toEqual(['a', 'b', 'c', 'd', 'approval/revoked'])
    const file = readFileSync(s.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(seen).toEqual(file.filter((e) => seen.some((x) => x.seq === e.seq)))
    s.close()
  })

  it('a throwing observer is ignored: the event is logged and later observers are told', async () => {
    const s = session()
    const seen: string[] = []
    s.observe(() => { throw new Error('observer bug') })
    s.observe((event) => seen.push(event.type))
    await s.append('a' as any, { n: 1 })
    s.post('b' as any, { n: 2 })
    await s.flush()
    expect(seen).toEqual(['a', 'b'])
    expect(s.events().map((e) => e.type)).toEqual(['a', 'b'])
    s.close()
  })
})
