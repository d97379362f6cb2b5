/**
 * `dsh sessions list|show|prune`, the real CLI over real session logs written
 * by a kernel: a torn last line is reported and left in the file, every event
 * is shown whole, each call carries its decision and reason, and prune
 * removes only what is older than its cut-off.
 */
import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { createKernel } from 'dsh'
import { testTool } from 'dsh/testing'
import { dshEnv } from '../cache-home.js'

const CLI = join(import.meta.dirname, '../../core/dsh/bin/dsh.js')
let dir: string

beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'dsh-sessions-')) })
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function dsh(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'sessions', ...args], { cwd: dir, env: dshEnv(), encoding: 'utf8', timeout: 30_000 })
  return { code: run.status, out: run.stdout, err: run.stderr }
}

const LONG = 'x'.repeat(300)

/** Two sessions written by a real kernel: `work` (an allowed call with a long argument, a denied one, an asked one) and `quiet`. */
async function writeSessions(): Promise<void> {
  const kernel = await createKernel({ dataDir: join(dir, '.dsh'), sandbox: { workspace: dir } })
  kernel.ctx.plugin({ name: 'fixture', inject: ['tools'], apply: (ctx: Context) => {
    ctx.tools.register(testTool('echo', (args: any) => `echo ${args.text}`))
    ctx.tools.guard((exec) => (exec.arguments.text === 'rm' ? 'rm is not allowed here' : undefined))
    ctx.on('tools/pre-execute', (exec, next) => (exec.arguments.text === 'ask' ? { kind: 'ask', reason: 'asking needs a human' } : next()))
  } })
  const work = kernel.openSession({ id: 'work' })
  work.beginTurn()
  await kernel.execute({ callId: 'c1', name: 'echo', arguments: { text: LONG }, session: work })
  await kernel.execute({ callId: 'c2', name: 'echo', arguments: { text: 'rm' }, session: work })
  await kernel.execute({ callId: 'c3', name: 'echo', arguments: { text: 'ask' }, session: work })
  work.endTurn()
  const quiet = kernel.openSession({ id: 'quiet' })
  await quiet.append('note' as any, { hello: true })
  await work.flush()
  await quiet.flush()
  await kernel.dispose()
}

describe('dsh sessions list', { timeout: 90_000 }, () => {
  it('lists every session with started, calls, errors and last event, and leaves a torn last line in the file', async () => {
    await writeSessions()
    const path = join(dir, '.dsh/sessions/work.jsonl')
    appendFileSync(path, '{"seq":99,"time":1,"type":"tool/ca')
    const before = readFileSync(path)
    const listed = dsh('list')
    expect(listed.code, listed.err).toBe(0)
    const work = listed.out.split('\n').find((l) => l.startsWith('work '))!
    expect(work).toMatch(/started \d{4}-\d\d-\d\dT[\d:.]+Z {2}3 calls {2}2 errors {2}last turn\/end at /)
    expect(work).toContain('[torn last line')
    expect(listed.out).toMatch(/^quiet {2}started .* 0 calls {2}0 errors {2}last note at /m)
    const json = JSON.parse(dsh('list', '--json').out)
    expect(json.map((s: any) => s.id).sort()).toEqual(['quiet', 'work'])
    expect(json.find((s: any) => s.id === 'work')).toMatchObject({ calls: 3, errors: 2, lastEvent: { type: 'turn/end' }, damage: expect.stringMatching(/^torn last line/) })
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  it('with no sessions says so; a data directory from --data-dir or the config is used', async () => {
    expect(dsh('list').out).toMatch(/^no sessions in /)
    await writeSessions()
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'sub/dsh.yml'), 'dataDir: ../.dsh\n')
    const viaConfig = spawnSync(process.execPath, [CLI, 'sessions', 'list'], { cwd: join(dir, 'sub'), env: dshEnv(), encoding: 'utf8', timeout: 30_000 })
    expect(viaConfig.stdout).toMatch(/^work /m)
    expect(dsh('list', '--data-dir', join(dir, 'nowhere')).out).toMatch(/^no sessions in /)
  })
})

describe('dsh sessions show', { timeout: 90_000 }, () => {
  it('prints every event whole, each call with its decision and reason on its line', async () => {
    await writeSessions()
    const shown = dsh('show', 'work')
    expect(shown.code, shown.err).toBe(0)
    const lines = shown.out.split('\n')
    const call = (id: string) => lines.find((l) => l.includes('→ call') && l.includes(` ${id} `))!
    expect(call('c1')).toContain(`{"text":"${LONG}"}`)
    expect(call('c1')).toMatch(/⇒ allowed$/)
    expect(call('c2')).toMatch(/⇒ refused \(DENIED\): rm is not allowed here$/)
    expect(call('c3')).toMatch(/⇒ approval unavailable: no approval\/request listener answered$/)
    // the result too is whole
    expect(lines.find((l) => l.includes('✓ result') && l.includes('c1'))).toContain(`echo ${LONG}`)
    expect(lines.find((l) => l.includes('• approval/asked'))).toContain('"reason":"asking needs a human"')
  })

  it('--json gives the events whole; a torn log is shown up to the tear and left as it is', async () => {
    await writeSessions()
    const path = join(dir, '.dsh/sessions/work.jsonl')
    appendFileSync(path, '{"seq":99,"ti')
    const before = readFileSync(path)
    const json = JSON.parse(dsh('show', 'work', '--json').out)
    expect(json.events.find((e: any) => e.type === 'tool/call' && e.data.callId === 'c1').data.arguments.text).toBe(LONG)
    expect(json.damage).toMatch(/^torn last line/)
    expect(dsh('show', 'work').out).toMatch(/^note: torn last line/m)
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  it('a hostile log cannot drive the terminal: control and bidi characters are shown escaped', async () => {
    mkdirSync(join(dir, '.dsh/sessions'), { recursive: true })
    writeFileSync(join(dir, '.dsh/sessions/evil.jsonl'), `${JSON.stringify({ seq: 1, time: 1, type: 'tool/call', data: { callId: 'x', name: 'a\u001b[2Jb', arguments: { t: 'c\u202ed\u0085' } } })}\n`)
    const out = dsh('show', 'evil').out
    expect(out).not.toMatch(/[\u001b\u202e\u0085]/)
    expect(out).toContain('a\\u001b[2Jb')
    expect(out).toContain('c\\u202ed\\u0085')
  })

  it('an unknown id, a malformed id or a missing id is a usage error naming it', async () => {
    await writeSessions()
    const unknown = dsh('show', 'nope')
    expect(unknown.code).toBe(2)
    expect(unknown.err).toMatch(/<id>: no session "nope" in /)
    const bad = dsh('show', '../work')
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/<id>: "\.\.\/work" is not a session id/)
    expect(dsh('show').err).toMatch(/show needs a session id/)
    expect(dsh('frobnicate').err).toMatch(/unknown action "frobnicate"/)
  })
})

describe('dsh sessions prune', { timeout: 90_000 }, () => {
  it('removes the sessions last written before the cut-off, with their spill files, and keeps the rest', async () => {
    await writeSessions()
    const old = join(dir, '.dsh/sessions/work.jsonl')
    const spill = join(dir, '.dsh/spill/work')
    mkdirSync(spill, { recursive: true })
    writeFileSync(join(spill, 'c1.txt'), 'spilled')
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000)
    utimesSync(old, twoDaysAgo, twoDaysAgo)
    const pruned = dsh('prune', '--older-than', '1d')
    expect(pruned.code, pruned.err).toBe(0)
    expect(pruned.out).toMatch(/^removed 1 session: work$/m)
    expect(existsSync(old)).toBe(false)
    expect(existsSync(spill)).toBe(false)
    expect(existsSync(join(dir, '.dsh/sessions/quiet.jsonl'))).toBe(true)
    expect(dsh('prune', '--older-than', '12h').out).toMatch(/no session .* is older than 12h/)
  })

  it('removes an old session\'s lock file with its log, and keeps a session a live process holds', async () => {
    await writeSessions()
    const sessions = join(dir, '.dsh/sessions')
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000)
    for (const id of ['work', 'quiet']) utimesSync(join(sessions, `${id}.jsonl`), twoDaysAgo, twoDaysAgo)
    // work: left by a crashed process (a pid that no longer runs); quiet: held by a live one
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    writeFileSync(join(sessions, 'work.lock'), `${dead.stdout}\n`)
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    try {
      writeFileSync(join(sessions, 'quiet.lock'), `${holder.pid}\n`)
      const pruned = dsh('prune', '--older-than', '1d')
      expect(pruned.code, pruned.err).toBe(0)
      expect(pruned.out).toMatch(/^removed 1 session: work$/m)
      expect(pruned.out).toMatch(/^kept 1 session in use: quiet$/m)
      expect(pruned.err).toContain(`kept quiet: session "quiet" is in use by process ${holder.pid}`)
      expect(existsSync(join(sessions, 'work.jsonl'))).toBe(false)
      expect(existsSync(join(sessions, 'work.lock'))).toBe(false)
      expect(readFileSync(join(sessions, 'quiet.lock'), 'utf8')).toBe(`${holder.pid}\n`)
      expect(existsSync(join(sessions, 'quiet.jsonl'))).toBe(true)
    } finally {
      holder.kill('SIGKILL')
    }
  })

  it('a bad duration is a usage error naming the argument, and nothing is removed', async () => {
    await writeSessions()
    for (const bad of ['7', 'd', '7days', '-1d', '1.5h', '0d', '']) {
      const run = dsh('prune', `--older-than=${bad}`)
      expect(run.code, bad).toBe(2)
      expect(run.err, bad).toMatch(/--older-than: .*(not a duration|not a positive duration)/)
    }
    expect(dsh('prune').err).toMatch(/prune needs --older-than/)
    expect(existsSync(join(dir, '.dsh/sessions/work.jsonl'))).toBe(true)
  })
})
