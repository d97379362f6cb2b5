/**
 * `dsh sandbox unrestored|clear`, the real CLI over a real mark: a process
 * holding `.claude` for its call is killed after its command rewrote it, the
 * workspace is swapped for a symlink so the put-back cannot be done safely,
 * and the entry is marked. The user lists the marks, a reader refuses the
 * entry naming the command that clears it, and clearing it (by a relative
 * path) lets the entry be put back and read again.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { readProtected } from '@dsh/sandbox'
import { dshEnv } from '../cache-home.js'

const CLI = path.join(import.meta.dirname, '../../core/dsh/bin/dsh.js')
const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
// the ledger is shared by every dsh process of the user: this file's records stay its own
usePrivateTmpdir('dsh-sandbox-cli-tmp-')
const temps: string[] = []
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function dsh(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, 'sandbox', ...args], { cwd, encoding: 'utf8', timeout: 30_000, env: dshEnv() })
  return { code: run.status, out: run.stdout, err: run.stderr }
}

describe('dsh sandbox', () => {
  it('lists an entry that could not be put back with why, and clear removes its mark; readers refuse it until then', () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-sandbox-cli-')))
    temps.push(parent)
    const ws = path.join(parent, 'ws')
    const claude = path.join(ws, '.claude')
    const file = path.join(claude, 'settings.json')
    fs.mkdirSync(claude, { recursive: true })
    fs.writeFileSync(file, 'old')
    const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { writeFileSync } from 'node:fs'; leaseProtected([${JSON.stringify(claude)}], [${JSON.stringify(ws)}], [${JSON.stringify(claude)}]); writeFileSync(${JSON.stringify(file)}, 'planted'); process.kill(process.pid, 'SIGKILL')`
    expect(spawnSync(process.execPath, ['--input-type=module', '-e', script]).signal).toBe('SIGKILL')
    const elsewhere = path.join(parent, 'elsewhere')
    fs.renameSync(ws, elsewhere)
    fs.symlinkSync(elsewhere, ws)
    expect(readProtected(file)).toEqual({ refused: expect.stringContaining(`dsh sandbox clear ${claude}`) })
    fs.unlinkSync(ws)
    fs.renameSync(elsewhere, ws)

    const listed = dsh(parent, 'unrestored')
    expect(listed.code, listed.err).toBe(0)
    expect(listed.out).toMatch(new RegExp(`${claude.replace(/[.]/g, '\\.')}  \\(marked [0-9T:.Z-]+\\)\\n  a confined call that held .* putting it back failed`))
    const json = dsh(parent, 'unrestored', '--json')
    expect(JSON.parse(json.out)).toContainEqual({ path: claude, reason: expect.stringContaining('its dsh process died'), at: expect.any(String) })
    expect(readProtected(file)).toHaveProperty('refused')

    const cleared = dsh(ws, 'clear', '.claude')
    expect(cleared.code, cleared.err).toBe(0)
    expect(cleared.out).toBe(`cleared ${claude}\n`)
    expect(JSON.parse(dsh(parent, 'unrestored', '--json').out).some((m: { path: string }) => m.path === claude)).toBe(false)
    // the record is acted on at last: put back, what the command wrote kept beside it
    expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
    expect(fs.readdirSync(ws).filter((n) => n.startsWith('.claude.dsh-displaced-'))).toHaveLength(1)

    const again = dsh(ws, 'clear', '.claude')
    expect(again.code).toBe(2)
    expect(again.err).toContain(`no mark on ${claude} (dsh sandbox unrestored lists the marked entries)`)
  })

  it('bad usage is exit 2 naming what was wrong', () => {
    const cwd = os.tmpdir()
    expect(dsh(cwd)).toMatchObject({ code: 2, err: expect.stringContaining('name an action: unrestored or clear <path>...') })
    expect(dsh(cwd, 'wipe')).toMatchObject({ code: 2, err: expect.stringContaining('unknown action "wipe"') })
    expect(dsh(cwd, 'clear')).toMatchObject({ code: 2, err: expect.stringContaining('clear needs the path of each entry') })
    expect(dsh(cwd, 'unrestored', 'x')).toMatchObject({ code: 2, err: expect.stringContaining('unexpected argument "x"') })
    expect(dsh(cwd, 'clear', 'x', '--json')).toMatchObject({ code: 2, err: expect.stringContaining('--json is for unrestored') })
    expect(dsh(cwd, '--help')).toMatchObject({ code: 0, out: expect.stringContaining('Usage: dsh sandbox unrestored') })
  })
})
