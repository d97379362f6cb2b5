// The Landlock carve with real files: rules are inodes, so every rule is
// carved by its real path (a link beside a denied path leading into it gets
// no rule, one leading above it is carved), and the cached carve is used only
// while what it read is unchanged. The real runs are in test/adversarial.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { dirsUnder, settled } from './settled.js'
import { bundledLauncher, DEFAULT_LIMITS, landlockArgs, landlockReadRules, PROTECTED_NAMES, type ResolvedPolicy } from '@dsh/sandbox'

let base: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'dsh-carve-')))
})
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const policy = (ws: string, readDeny: string[], readAllow: string[] = []): ResolvedPolicy => ({ mode: 'read-only', workspace: ws, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny, readAllow, protectedPaths: PROTECTED_NAMES })
const ro = (rules: string[]) => rules.filter((_, i) => rules[i - 1] === '--ro')

describe('the Landlock carve', () => {
  it('by real path: a link into the denied path gets no rule, a link above it or a rule through a linked ancestor is carved', () => {
    const home = path.join(base, 'real/home')
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
    fs.writeFileSync(path.join(home, 'notes'), '')
    fs.symlinkSync('.ssh', path.join(home, 'keys'))
    fs.symlinkSync(home, path.join(home, 'again'))
    fs.symlinkSync('real', path.join(base, 'alias'))
    const denied = path.join(home, '.ssh')
    const carved = landlockReadRules(policy('/nonexistent-ws', [denied]), ['--ro', path.join(base, 'alias'), '--ro', '/usr'])
    expect(ro(carved.rules).sort()).toEqual([path.join(home, 'notes'), '/usr'].sort())
    expect(carved.hidden).toEqual([denied])
  })

  it('is kept while what it read is unchanged, and carved again when the denied path appears or its parent changes', async () => {
    const dir = path.join(base, 'cached')
    fs.mkdirSync(path.join(dir, 'a'), { recursive: true })
    fs.mkdirSync(path.join(dir, 'b'))
    const denied = path.join(dir, 'secret')
    // Why wait: a listing of a directory changed in the last two seconds is never kept (coarse file times)
    await settled(dirsUnder(dir))
    const p = policy('/nonexistent-ws', [denied])
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([dir]) // nothing to carve yet
    fs.mkdirSync(denied)
    const carved = landlockReadRules(p, ['--ro', dir])
    expect(ro(carved.rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b')])
    expect(carved.hidden).toEqual([denied])
    await settled(dirsUnder(dir))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b')]) // kept
    // a link planted later beside it, leading into it, must not reuse the old listing (its rule would be the denied inode's)
    fs.symlinkSync('secret', path.join(dir, 'c'))
    fs.mkdirSync(path.join(dir, 'd'))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b'), path.join(dir, 'd')])
    // a carved entry swapped for a link into the denied path is caught by the parent's change
    fs.rmSync(path.join(dir, 'a'), { recursive: true })
    fs.symlinkSync('secret', path.join(dir, 'a'))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'b'), path.join(dir, 'd')])
  })
})

describe('the carve in read-only takes the workspace in', () => {
  const host = ['/usr', '/lib', '/lib64', '/bin', '/etc'].filter((p) => fs.existsSync(p)).flatMap((p) => ['--ro', p])

  it('a denied path inside the workspace gets no rule and the workspace no rule of its own; workspace-write still leaves it (read-deny)', () => {
    const ws = path.join(base, 'ws-carve')
    fs.mkdirSync(path.join(ws, '.dsh/sessions'), { recursive: true })
    fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV')
    fs.writeFileSync(path.join(ws, 'notes'), 'notes')
    const p = policy(ws, [path.join(ws, '.env'), path.join(ws, '.dsh')])
    const carved = landlockReadRules(p, host)
    expect(ro(carved.rules)).toContain(path.join(ws, 'notes'))
    expect(ro(carved.rules)).not.toContain(ws)
    expect(ro(carved.rules).filter((r) => r.startsWith(ws))).toEqual([path.join(ws, 'notes')])
    expect(carved.hidden).toEqual([path.join(ws, '.env'), path.join(ws, '.dsh')])
    // no rule names the workspace itself (--inode only says what the host resolved it to; decisions/2026-12-02-protected-ancestors.md)
    const args = landlockArgs(p, host, carved)
    const rules = args.filter((arg, i) => arg === ws && args[i - 1] !== '--inode' && args[i - 1] !== '--chdir')
    expect(rules).toEqual([])
    const rw = { ...p, mode: 'workspace-write' as const, writableRoots: [ws] }
    expect(landlockReadRules(rw, host).hidden).toEqual([])
  })

  const launcher = bundledLauncher()
  it.skipIf('reason' in launcher)('run by the launcher (no mounts, as any caller without CAP_SYS_ADMIN gets it): cat of the denied file fails, the rest reads', () => {
    const ws = path.join(base, 'ws-run')
    fs.mkdirSync(path.join(ws, '.dsh/sessions'), { recursive: true })
    fs.writeFileSync(path.join(ws, '.dsh/sessions/s.jsonl'), 'LOGGED-SECRET')
    fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV')
    fs.writeFileSync(path.join(ws, 'notes'), 'plain notes')
    const p = policy(ws, [path.join(ws, '.env'), path.join(ws, '.dsh')])
    const args = landlockArgs(p, host, landlockReadRules(p, host))
    const run = spawnSync((launcher as { path: string }).path, [...args, '--', '/bin/sh', '-c', `cd ${ws}; cat .env; cat .dsh/sessions/s.jsonl; grep -r SECRET .; cat notes`], { encoding: 'utf8' })
    expect(run.stdout).toContain('plain notes')
    expect(run.stdout).not.toMatch(/SECRET-ENV|LOGGED-SECRET/)
    expect(run.stderr).toMatch(/\.env: Permission denied/)
  })
})
