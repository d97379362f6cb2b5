// The holes the first attack round found that the threat model did not
// admit, run against each real backend: a protected symlink into the
// workspace, a `.git` pointer file, two overlapping calls racing on an
// absent protected path, a host that spawns the confined argv with its own
// environment, and the keyrings. Each asserts the denial and what is on disk.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Confined, LocalBackend } from '@dsh/sandbox'
import { describeOnBackend, runConfined, sleep, startSandbox, tmp, tree, type Run } from './harness.js'
import { lacks, skipWhen } from '../backends.js'

/** Spawn a confined argv with the host's whole environment, as a careless host would. */
function runWithHostEnv(confined: Confined, cwd: string): Promise<Run> {
  const child = spawn(confined.argv[0], confined.argv.slice(1), { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d))
  child.stderr.on('data', (d: Buffer) => (stderr += d))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000)
    child.on('error', reject)
    child.on('close', (code, signal) => (clearTimeout(timer), resolve({ code, signal, stdout, stderr })))
  })
}

// a python program that calls add_key/keyctl directly and prints each errno name
const KEYS = String.raw`
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(*args):
    r = libc.syscall(*args)
    return 'ok' if r >= 0 else errno.errorcode[ctypes.get_errno()]
desc = sys.argv[1].encode()
# add_key(248) to the session (-3) and user (-4) keyrings; keyctl(250) READ(11) of the session keyring
print(call(248, b'user', desc + b'-ses', b'planted', 7, -3))
print(call(248, b'user', desc + b'-usr', b'planted', 7, -4))
print(call(250, 11, -3, None, 0))
`

export async function holesSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} hole suite`)

  describeOnBackend(backend, `holes closed on the ${backend} backend`, skip, (sandbox) => {

    const sh = async (ws: string, script: string) => {
      const confined = await sandbox().confine(['/bin/sh', '-c', script], ws)
      expect(confined.backend).toBe(backend)
      const run = await runConfined(confined, ws)
      return { ...run, confined, restored: confined.cleanup() }
    }

    describe('protected symlinks whose target is inside the workspace', () => {
      it('the target of `.codex -> decoy` is read-only (bwrap) or reported (landlock), never silently writable', async () => {
        const ws = tmp('ws')
        fs.mkdirSync(path.join(ws, 'decoy'))
        fs.writeFileSync(path.join(ws, 'decoy/config.toml'), 'model = "safe"\n')
        fs.symlinkSync('decoy', path.join(ws, '.codex'))
        const before = tree(path.join(ws, 'decoy'))
        const r = await sh(ws, 'echo evil >> .codex/config.toml; echo evil > decoy/config.toml; echo new > decoy/new; rm -f decoy/config.toml; echo done')
        expect(r.stdout).toContain('done')
        if (backend === 'landlock') {
          expect(r.confined.unenforced).toContain('protected-paths')
          return
        }
        expect(r.confined.unenforced).not.toContain('protected-paths')
        expect(tree(path.join(ws, 'decoy'))).toEqual(before)
        expect(fs.readlinkSync(path.join(ws, '.codex'))).toBe('decoy')
      })

      it('a dangling `.claude -> later` cannot be filled in: the target made during the call is removed', async () => {
        const ws = tmp('ws')
        fs.symlinkSync('later', path.join(ws, '.claude'))
        const r = await sh(ws, 'mkdir later && echo "{\\"hooks\\":1}" > later/settings.json; echo done')
        expect(r.stdout).toContain('done')
        expect(r.restored).toContain(path.join(ws, 'later'))
        expect(fs.existsSync(path.join(ws, 'later'))).toBe(false)
        expect(fs.readlinkSync(path.join(ws, '.claude'))).toBe('later')
      })

      it('a protected symlink to the workspace itself is refused with a reason, nothing runs', async () => {
        const ws = tmp('ws')
        fs.symlinkSync('.', path.join(ws, '.codex'))
        await expect(sandbox().confine(['/bin/sh', '-c', 'echo ran > ran'], ws)).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringMatching(/\.codex leads to the writable root/) })
        expect(fs.existsSync(path.join(ws, 'ran'))).toBe(false)
      })
    })

    describe('a `.git` pointer file', () => {
      const plant = (ws: string) => {
        fs.mkdirSync(path.join(ws, 'realgit/hooks'), { recursive: true })
        fs.writeFileSync(path.join(ws, 'realgit/config'), '[core]\n')
        fs.mkdirSync(path.join(ws, 'main.git/hooks'), { recursive: true })
        fs.writeFileSync(path.join(ws, 'main.git/config'), '[core]\n')
        fs.writeFileSync(path.join(ws, 'realgit/commondir'), '../main.git\n')
        fs.writeFileSync(path.join(ws, '.git'), 'gitdir: realgit\n')
      }
      it('the directory it points to (and its commondir) stays read-only (bwrap) or is reported (landlock)', async () => {
        const ws = tmp('ws')
        plant(ws)
        const guarded = () => Object.fromEntries(Object.entries(tree(ws)).filter(([k]) => /^(realgit|main\.git|\.git)/.test(k)))
        const before = guarded()
        const r = await sh(ws, [
          'echo "#!/bin/sh" > realgit/hooks/pre-commit', 'echo "[core] hooksPath=/x" >> realgit/config',
          'echo "#!/bin/sh" > main.git/hooks/post-checkout', 'mv realgit moved', 'echo done',
        ].join('; '))
        expect(r.stdout).toContain('done')
        if (backend === 'landlock') {
          expect(r.confined.unenforced).toContain('protected-paths')
          return
        }
        expect(guarded()).toEqual(before)
      })
    })

    describe('two overlapping calls on one workspace', () => {
      it('call A creates `.git`, B starts while it exists, A ends: what B plants does not outlive both calls', async () => {
        const ws = tmp('ws')
        // A makes .git and waits (bounded) for the test to let it go
        const a = await sandbox().confine(['/bin/sh', '-c', 'mkdir -p .git && echo a > .git/made-by-a; i=0; while [ ! -e a-go ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done'], ws)
        const runA = runConfined(a, ws)
        for (let i = 0; i < 100 && !fs.existsSync(path.join(ws, '.git/made-by-a')); i++) await sleep(50)
        expect(fs.existsSync(path.join(ws, '.git/made-by-a'))).toBe(true)
        // B sees .git as existing; it waits (bounded) until A's cleanup has run, then plants a hook
        const b = await sandbox().confine(['/bin/sh', '-c', 'i=0; while [ ! -e b-go ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; mkdir -p .git/hooks; echo "#!/bin/sh" > .git/hooks/pre-commit; echo planted'], ws)
        const runB = runConfined(b, ws)
        fs.writeFileSync(path.join(ws, 'a-go'), '')
        await runA
        a.cleanup()
        fs.writeFileSync(path.join(ws, 'b-go'), '')
        await runB
        b.cleanup()
        expect(fs.existsSync(path.join(ws, '.git'))).toBe(false)
        expect(fs.readdirSync(ws).sort()).toEqual(['a-go', 'b-go'])
      })

      it('two sandbox services (as two dsh processes would be) share the record', async () => {
        const ws = tmp('ws')
        const other = await startSandbox(backend)
        try {
          const a = await sandbox().confine(['/bin/sh', '-c', 'mkdir .claude && echo "{}" > .claude/settings.json'], ws)
          await runConfined(a, ws)
          const b = await other.confine(['/bin/sh', '-c', 'true'], ws)
          a.cleanup()
          await runConfined(b, ws)
          expect(b.cleanup()).toEqual([path.join(ws, '.claude')])
          expect(fs.existsSync(path.join(ws, '.claude'))).toBe(false)
        } finally {
          await other.stop()
        }
      })
    })

    describe('the environment', () => {
      it('a host that spawns the confined argv with its own environment leaks none of it', async () => {
        const ws = tmp('ws')
        process.env.DSH_ADV_HOST_SECRET = 'sk-leaked'
        try {
          const confined = await sandbox().confine(['/bin/sh', '-c', 'env; cat /proc/self/environ | tr "\\0" "\\n"'], ws)
          expect(confined.env).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: ws, LANG: 'C.UTF-8' })
          const r = await runWithHostEnv(confined, ws)
          confined.cleanup()
          expect(r.code, r.stderr).toBe(0)
          expect(r.stdout).not.toContain('sk-leaked')
          const names = new Set(r.stdout.trim().split('\n').map((l) => l.split('=')[0]))
          expect([...names].filter((n) => !['PATH', 'HOME', 'LANG', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(n))).toEqual([])
        } finally {
          delete process.env.DSH_ADV_HOST_SECRET
        }
      })
    })

    describe('keyrings', () => {
      const python = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => fs.existsSync(p))
      it.skipIf(skipWhen(!python, 'the keyring attack', 'python3 is not in /usr/bin or /usr/local/bin'))('add_key and keyctl are refused, and no key is planted in the session or user keyring', async () => {
        const ws = tmp('ws')
        const tools = tmp('tools', '/var/tmp')
        fs.writeFileSync(path.join(tools, 'keys.py'), KEYS)
        const desc = `dsh-adv-${process.pid}-${Date.now()}`
        const r = await sh(ws, `${python} ${tools}/keys.py ${desc}`)
        expect(r.stdout.trim().split('\n'), r.stderr).toEqual(['EPERM', 'EPERM', 'EPERM'])
        // the control: outside the sandbox the same program can add a key (to its own process keyring)
        const keys = fs.readFileSync('/proc/keys', 'utf8')
        expect(keys).not.toContain(desc)
        const control = spawnSync(python!, ['-c', `${KEYS.replace(/^print.*$/gm, '')}\nprint(call(248, b'user', b'${desc}-ctl', b'x', 1, -2))`, desc], { encoding: 'utf8' })
        expect(control.stdout.trim()).toBe('ok')
      })
    })
  })
}
