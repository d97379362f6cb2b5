// The Seatbelt profile is generated text: checked here on every platform,
// run for real only on darwin.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROTECTED_NAMES, SANDBOX_EXEC, seatbeltArgs, seatbeltProfile, seatbeltProvider, seatbeltUnenforced, type ResolvedPolicy, DEFAULT_LIMITS } from '@dsh/sandbox'

const ws = '/Users/dev/my "odd" (ws)'
const policy = (over: Partial<ResolvedPolicy> = {}): ResolvedPolicy => ({ mode: 'read-only', workspace: ws, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, ...over })

describe('seatbelt profile text', () => {
  it('read-only: deny by default, reads allowed, no write rule but /dev/null, no network', () => {
    const { profile, params } = seatbeltProfile(policy())
    expect(profile.split('\n')[0]).toBe('(version 1)')
    expect(profile).toContain('(deny default)')
    expect(profile).toContain('(allow file-read*)')
    expect(profile.match(/file-write/g)).toEqual(['file-write'])
    expect(profile).toContain('(allow file-write-data (literal "/dev/null"))')
    expect(profile).not.toMatch(/network/)
    expect(params).toEqual({})
  })

  it('workspace-write: each root writable except its protected names, which are matched even when absent', () => {
    const roots = [ws, '/tmp/extra']
    const { profile, params } = seatbeltProfile(policy({ mode: 'workspace-write', writableRoots: roots }))
    const rules = profile.split('\n').filter((l) => l.startsWith('(allow file-write* '))
    expect(rules).toHaveLength(2)
    for (const [i, root] of roots.entries()) {
      expect(params[`WRITABLE_ROOT_${i}`]).toBe(root)
      const carveOuts = PROTECTED_NAMES.map((name, j) => {
        expect(params[`WRITABLE_ROOT_${i}_PROTECTED_${j}`]).toBe(path.join(root, name))
        return `(require-not (subpath (param "WRITABLE_ROOT_${i}_PROTECTED_${j}")))`
      })
      expect(rules[i]).toBe(`(allow file-write* (require-all (subpath (param "WRITABLE_ROOT_${i}")) ${carveOuts.join(' ')}))`)
    }
  })

  it('paths never enter the profile text (quotes and parentheses cannot change its meaning)', () => {
    const { profile } = seatbeltProfile(policy({ mode: 'workspace-write', writableRoots: [ws] }))
    expect(profile).not.toContain('odd')
    expect(profile).not.toContain('/Users')
  })

  it('network on adds the network rules and reports pathname unix sockets as unenforced', () => {
    const on = policy({ network: 'on' })
    expect(seatbeltProfile(on).profile).toContain('(allow network-outbound)')
    expect(seatbeltUnenforced(on)).toEqual(['pathname-unix-sockets'])
    expect(seatbeltUnenforced(policy())).toEqual([])
  })

  it('argv: sandbox-exec by absolute path, the profile, one -D per parameter, then the command', () => {
    const argv = seatbeltArgs(['/bin/sh', '-c', 'true'], policy({ mode: 'workspace-write', writableRoots: [ws] }))
    expect(argv[0]).toBe(SANDBOX_EXEC)
    expect(argv[1]).toBe('-p')
    // the environment is fixed inside the profile: env -i with only the policy's variables
    expect(argv.slice(argv.indexOf('--'))).toEqual(['--', '/usr/bin/env', '-i', 'PATH=/usr/local/bin:/usr/bin:/bin', `HOME=${ws}`, 'LANG=C.UTF-8', '/bin/sh', '-c', 'true'])
    expect(argv.filter((a) => a.startsWith('-D'))).toHaveLength(1 + PROTECTED_NAMES.length)
    expect(argv).toContain(`-DWRITABLE_ROOT_0=${ws}`)
  })

  it.skipIf(process.platform === 'darwin')('off darwin the provider is not for this platform and never confines', async () => {
    expect(seatbeltProvider().platforms).toEqual(['darwin'])
    expect(() => seatbeltProvider().confine(['/bin/true'], policy())).toThrow(/before a successful probe/)
  })

  it.skipIf(process.platform !== 'darwin')('on darwin a read-only profile refuses a write and a workspace-write profile refuses .git', async () => {
    const provider = seatbeltProvider()
    expect((await provider.probe()).available).toBe(true)
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-seatbelt-')))
    try {
      const { spawnSync } = await import('node:child_process')
      const c = provider.confine(['/bin/sh', '-c', 'echo ok > f; mkdir .git; echo x > .git/config'], { mode: 'workspace-write', workspace: dir, writableRoots: [dir], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES })
      spawnSync(c.argv[0], c.argv.slice(1), { cwd: dir })
      expect(fs.readFileSync(path.join(dir, 'f'), 'utf8')).toBe('ok\n')
      expect(fs.existsSync(path.join(dir, '.git'))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
