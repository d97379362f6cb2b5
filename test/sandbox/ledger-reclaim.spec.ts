// What a confined call whose dsh process was killed leaves in the ledger of
// protected entries: real processes take an entry, their command rewrites it
// and they are killed (SIGKILL) before putting it back. The next reader, the
// next lease of the entry and the first lease of any later process put it
// back from the record, keep what was there beside it, and remove the record;
// a put-back that cannot be done is marked, refused to readers, listed and
// cleared by the user.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { clearUnrestored, ledgerDir, leaseProtected, listUnrestored, readProtected, stateFile, unrestoredFile } from '@dsh/sandbox'
import { tempDirs } from '../temp-dirs.js'

const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
// the ledger is shared by every dsh process of the user: this file's records stay its own
usePrivateTmpdir('dsh-reclaim-tmp-')
const temps = tempDirs()
const tmp = () => temps.make('dsh-reclaim-')
afterEach(() => temps.removeAll())

/** A workspace whose .claude/settings.json holds "old". */
function claudeWorkspace(parent = tmp()) {
  const ws = path.join(parent, 'ws')
  const claude = path.join(ws, '.claude')
  const file = path.join(claude, 'settings.json')
  fs.mkdirSync(claude, { recursive: true })
  fs.writeFileSync(file, 'old')
  return { parent, ws, claude, file }
}

/** A real process copies `claude` for its call, its command writes `planted` there, and it is killed before putting it back. */
function killedHolder(ws: string, claude: string, file: string, env: NodeJS.ProcessEnv = process.env): void {
  const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { writeFileSync } from 'node:fs'; leaseProtected([${JSON.stringify(claude)}], [${JSON.stringify(ws)}], [${JSON.stringify(claude)}]); writeFileSync(${JSON.stringify(file)}, '{"hooks":"planted"}'); process.kill(process.pid, 'SIGKILL')`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env })
  expect(child.signal, child.stderr).toBe('SIGKILL')
  expect(fs.readFileSync(file, 'utf8')).toBe('{"hooks":"planted"}')
}

/** The entries beside `claude` that hold what was there instead. */
const displaced = (claude: string) => fs.readdirSync(path.dirname(claude)).filter((n) => n.startsWith('.claude.dsh-displaced-')).map((n) => path.join(path.dirname(claude), n))

describe('a call whose dsh process was killed holding a protected entry', () => {
  it('the next reader puts the entry back from the record before reading, keeps the planted copy beside it (inert), and removes the record', () => {
    const { ws, claude, file } = claudeWorkspace()
    killedHolder(ws, claude, file)
    expect(fs.existsSync(stateFile(ledgerDir(), claude))).toBe(true)
    expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
    expect(fs.readFileSync(file, 'utf8')).toBe('old')
    const aside = displaced(claude)
    expect(aside).toHaveLength(1)
    expect(fs.readFileSync(path.join(aside[0], 'settings.json'), 'utf8')).toBe('{"hooks":"planted"}')
    expect(fs.existsSync(stateFile(ledgerDir(), claude))).toBe(false)
    expect(fs.existsSync(unrestoredFile(ledgerDir(), claude))).toBe(false)
  })

  it('the next lease of the entry puts it back before recording it, and says so', () => {
    const { ws, claude, file } = claudeWorkspace()
    killedHolder(ws, claude, file)
    const lease = leaseProtected([claude], [ws], [claude])
    expect(lease.reclaimed).toEqual([{ path: claude, displaced: displaced(claude)[0] }])
    // recorded as it was put back: what the next release restores is "old", not the planted file
    fs.writeFileSync(file, 'during the call')
    expect(lease.release()).toEqual([claude])
    expect(fs.readFileSync(file, 'utf8')).toBe('old')
    expect(fs.existsSync(stateFile(ledgerDir(), claude))).toBe(false)
  })

  it('the first lease of a later process puts back every entry dead holders left, whichever paths it takes itself', () => {
    const { ws, claude, file } = claudeWorkspace()
    // a ledger of their own (TMPDIR): no other process of the machine sweeps it first
    const env = { ...process.env, TMPDIR: tmp() }
    const ledger = path.join(env.TMPDIR, `dsh-protected-${process.getuid!()}`)
    killedHolder(ws, claude, file, env)
    expect(fs.existsSync(stateFile(ledger, claude))).toBe(true)
    const other = tmp()
    // a ledger other runs left full is worked off a bounded number of records a lease: lease again (at most 50 times) until it is through
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; const all = []; for (let i = 0; i < 50; i++) { const l = leaseProtected([${JSON.stringify(path.join(other, '.git'))}], [${JSON.stringify(other)}]); all.push(...l.reclaimed); l.release(); if (all.some((r) => r.path === ${JSON.stringify(claude)})) break } console.log(JSON.stringify(all))`
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env })
    expect(child.status, child.stderr).toBe(0)
    expect(JSON.parse(child.stdout)).toEqual([{ path: claude, displaced: displaced(claude)[0] }])
    expect(fs.readFileSync(file, 'utf8')).toBe('old')
    expect(fs.existsSync(stateFile(ledger, claude))).toBe(false)
  })

  it('a later process whose first lease takes nothing (a read-only call: no writable root) still puts them back first', () => {
    const { ws, claude, file } = claudeWorkspace()
    const env = { ...process.env, TMPDIR: tmp() }
    killedHolder(ws, claude, file, env)
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; const all = []; for (let i = 0; i < 50; i++) { const l = leaseProtected([], []); all.push(...l.reclaimed); l.release(); if (all.some((r) => r.path === ${JSON.stringify(claude)})) break } console.log(JSON.stringify(all))`
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env })
    expect(child.status, child.stderr).toBe(0)
    expect(JSON.parse(child.stdout)).toEqual([{ path: claude, displaced: displaced(claude)[0] }])
    expect(fs.readFileSync(file, 'utf8')).toBe('old')
  })

  it('once its put-back is through, a lease that takes nothing neither waits for nor touches the ledger\'s lock', () => {
    const env = { ...process.env, TMPDIR: tmp() }
    const ledger = path.join(env.TMPDIR, `dsh-protected-${process.getuid!()}`)
    const lock = path.join(ledger, 'lock')
    // the lock is held by a live process (this child itself) for the whole second lease: taking it
    // would wait 10 s, then refuse the lease (SANDBOX_UNAVAILABLE), so a lease that returns took none
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { mkdirSync, writeFileSync } from 'node:fs'
leaseProtected([], []).release()
mkdirSync(${JSON.stringify(lock)}); writeFileSync(${JSON.stringify(path.join(lock, 'owner'))}, String(process.pid))
const lease = leaseProtected([], []); const released = lease.release()
console.log(JSON.stringify({ entries: lease.entries, released }))`
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env, timeout: 30_000 })
    expect(child.status, child.stderr).toBe(0)
    const out = JSON.parse(child.stdout)
    expect(out.entries).toEqual([])
    expect(out.released).toEqual([])
    // the holder's lock is as it left it
    expect(fs.readFileSync(path.join(lock, 'owner'), 'utf8')).toBe(String(child.pid))
  })

  it('an entry the killed call left unchanged is not touched; only its record goes', () => {
    const { ws, claude, file } = claudeWorkspace()
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; leaseProtected([${JSON.stringify(claude)}], [${JSON.stringify(ws)}], [${JSON.stringify(claude)}]); process.kill(process.pid, 'SIGKILL')`
    expect(spawnSync(process.execPath, ['--input-type=module', '-e', script]).signal).toBe('SIGKILL')
    const before = fs.statSync(file).ino
    expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
    expect(fs.statSync(file).ino).toBe(before)
    expect(displaced(claude)).toEqual([])
    expect(fs.existsSync(stateFile(ledgerDir(), claude))).toBe(false)
  })

  it('a put-back that cannot be done safely (the workspace swapped for a symlink elsewhere) writes nothing there, is marked, refused to readers with the command that clears it, listed, and cleared by the user', () => {
    const { parent, ws, claude, file } = claudeWorkspace()
    killedHolder(ws, claude, file)
    // the workspace directory is swapped for a link to a directory outside it, holding its own .claude
    const elsewhere = path.join(parent, 'elsewhere')
    fs.renameSync(ws, elsewhere)
    fs.symlinkSync(elsewhere, ws)
    const refused = readProtected(file)
    expect(refused).toEqual({ refused: expect.stringContaining(`run \`dsh sandbox clear ${claude}\``) })
    expect('refused' in refused && refused.refused).toMatch(/putting it back failed .*no longer the directory it was/)
    // nothing was written or moved through the link
    expect(fs.readFileSync(path.join(elsewhere, '.claude/settings.json'), 'utf8')).toBe('{"hooks":"planted"}')
    expect(fs.readdirSync(elsewhere)).toEqual(['.claude'])
    expect(listUnrestored()).toContainEqual({ path: claude, reason: expect.stringContaining('its dsh process died'), at: expect.any(String) })
    // still refused on the next read; the record stays for a later try
    expect(readProtected(file)).toHaveProperty('refused')
    fs.unlinkSync(ws)
    fs.renameSync(elsewhere, ws)
    expect(clearUnrestored(claude)).toBe(true)
    expect(clearUnrestored(claude)).toBe(false)
    expect(listUnrestored().some((m) => m.path === claude)).toBe(false)
    // the workspace back where it was: the record is acted on at last
    expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
  })
})
