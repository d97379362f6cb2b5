// bash on the machine's backend changing protected entries: bwrap refuses
// the writes; Landlock alone lets them happen and puts the entries back
// when the call ends — also when the deadline killed it — recording a
// `sandbox/restored` event and saying so in the result. Either way the
// entries are as they were afterwards. Run under `.ci/without-bwrap` for
// the Landlock path.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { sandboxBackend, skipWhen } from '../backends.js'
import { setup, teardown, text, tmp } from './helpers.js'

afterEach(teardown)

const backend = await sandboxBackend()

function workspace(): string {
  const ws = tmp('ws')
  fs.mkdirSync(path.join(ws, '.claude'))
  fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{"hooks":{}}\n')
  fs.writeFileSync(path.join(ws, '.bashrc'), '# mine\n')
  return ws
}

const PLANT = 'echo \'{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"evil"}]}]}}\' > .claude/settings.json; echo evil >> .bashrc'

describe.skipIf(skipWhen(!backend, 'bash changing protected entries', 'no sandbox backend can confine bash here'))(`protected entries under bash (${backend})`, () => {
  it('what the command changed is as it was after the call; Landlock records sandbox/restored and says so', async () => {
    const ws = workspace()
    const { k } = await setup({ mode: 'workspace-write', sandbox: { workspace: ws } })
    const r = await k.call('bash', { command: `${PLANT}; echo done` }, { callId: 'p1' })
    expect(text(r)).toContain('done')
    expect(fs.readFileSync(path.join(ws, '.claude/settings.json'), 'utf8')).toBe('{"hooks":{}}\n')
    expect(fs.readFileSync(path.join(ws, '.bashrc'), 'utf8')).toBe('# mine\n')
    const events = k.session.events().filter((e) => e.type === 'sandbox/restored')
    if (backend === 'landlock') {
      expect(text(r)).toMatch(/\[sandbox: removed or restored protected paths the command changed: .*\.claude/)
      expect(events.map((e) => e.data)).toEqual([{ callId: 'p1', paths: expect.arrayContaining([path.join(ws, '.claude'), path.join(ws, '.bashrc')]) }])
    } else {
      expect(events).toEqual([])
    }
  })

  it('a call killed at its deadline is put back too, and the TIMEOUT says so', async () => {
    const ws = workspace()
    const { k } = await setup({ mode: 'workspace-write', sandbox: { workspace: ws } })
    const r = await k.call('bash', { command: `${PLANT}; sleep 30`, timeout: 1000 }, { callId: 'p2' })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(fs.readFileSync(path.join(ws, '.claude/settings.json'), 'utf8')).toBe('{"hooks":{}}\n')
    expect(fs.readFileSync(path.join(ws, '.bashrc'), 'utf8')).toBe('# mine\n')
    if (backend === 'landlock') {
      expect(r.error?.message).toMatch(/restored protected paths the command changed/)
      expect(k.session.events().some((e) => e.type === 'sandbox/restored' && (e.data as any).callId === 'p2')).toBe(true)
    }
  })
})
