// The attacks that only namespaces stop, run against each real backend: a
// host process's command line read through /proc, the host's processes
// signalled by pid, metadata of files outside the roots, and a setsid
// descendant of a command whose launcher is SIGKILLed. Under a mount and
// PID namespace (bwrap, landlock-ns) each is denied; under plain Landlock
// each is a documented limit the confined call reports in `unenforced`,
// and the test shows the limit is real.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { describeOnBackend, mountNamespace, outsideDir, pidAlive, runConfined, sleep, tmp } from './harness.js'
import { lacks } from '../backends.js'
import { noneLeftWith } from '../processes.js'

export async function namespaceSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} namespace-only attacks`)
  const ns = mountNamespace(backend)

  describeOnBackend(backend, `namespace-only attacks on the ${backend} backend`, skip, (sandbox) => {
    const confine = (script: string, ws: string) => sandbox().service.confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws })

    it(`a host process's command line (a secret in its argv) is ${ns ? 'not visible' : 'visible, and reported'}`, async () => {
      const ws = tmp('ws')
      const marker = `dsh-adv-argv-secret-${process.pid}-${Date.now()}`
      const host = spawn('/bin/sh', ['-c', 'sleep 30', marker], { stdio: 'ignore' })
      try {
        const confined = await confine('cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "; echo; ls /proc | grep -c "^[0-9]"', ws)
        const r = await runConfined(confined, ws)
        confined.cleanup()
        if (ns) {
          expect(r.stdout).not.toContain(marker)
          expect(confined.unenforced).not.toContain('host-processes')
        } else {
          expect(r.stdout).toContain(marker)
          expect(confined.unenforced).toContain('host-processes')
        }
      } finally {
        host.kill('SIGKILL')
      }
    })

    it(`metadata outside the roots (chmod, touch -d, setfattr) ${ns ? 'cannot change' : 'can change, and is reported'}`, async () => {
      const ws = tmp('ws')
      const out = outsideDir()
      const file = path.join(out, 'f')
      fs.writeFileSync(file, 'x')
      fs.chmodSync(file, 0o644)
      fs.utimesSync(file, 1_000_000, 1_000_000)
      const confined = await confine(`chmod 600 ${file}; touch -m -d @2000000 ${file}; echo done`, ws)
      const r = await runConfined(confined, ws)
      confined.cleanup()
      expect(r.stdout).toContain('done')
      const st = fs.statSync(file)
      if (ns) {
        expect([st.mode & 0o777, st.mtimeMs]).toEqual([0o644, 1_000_000_000])
        expect(confined.unenforced).not.toContain('metadata')
      } else {
        expect(st.mode & 0o777).toBe(0o600)
        expect(confined.unenforced).toContain('metadata')
      }
    })

    it(`a setsid descendant of a command whose launcher is SIGKILLed ${ns ? 'dies with it' : 'survives, and is reported'}`, async () => {
      const ws = tmp('ws')
      const pidFile = path.join(ws, 'pid')
      // the descendant writes its pid, then (bounded) keeps writing a file for 3 s
      const confined = await confine(`setsid sh -c 'echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; i=0; while [ $i -lt 30 ]; do echo $i > tick; sleep 0.1; i=$((i+1)); done' >/dev/null 2>&1 & sleep 20`, ws)
      const child = spawn(confined.argv[0], confined.argv.slice(1), { cwd: ws, stdio: 'ignore', env: { PATH: '/usr/bin:/bin' } })
      try {
        for (let i = 0; i < 100 && !fs.existsSync(pidFile); i++) await sleep(50)
        expect(fs.existsSync(pidFile)).toBe(true)
        child.kill('SIGKILL') // the launcher (or bwrap) itself, not the command
        await new Promise((r) => child.once('exit', r))
        const ticks = () => (fs.existsSync(path.join(ws, 'tick')) ? fs.readFileSync(path.join(ws, 'tick'), 'utf8') : '')
        if (ns) {
          // nothing of it runs on: every process with its command line is gone (host pids, whatever namespace)
          expect(await noneLeftWith(`${pidFile}.tmp`)).toBe(true)
          expect(confined.unenforced).not.toContain('launcher-sigkill')
        } else {
          // it ticks on after the kill (bounded: it stops by itself after 3 s)
          const before = ticks()
          for (const end = Date.now() + 2500; ticks() === before && Date.now() < end;) await sleep(50)
          expect(ticks()).not.toBe(before)
          expect(confined.unenforced).toContain('launcher-sigkill')
        }
      } finally {
        // the bound on this test: whatever survived is killed here (its pid, as seen on the host, is in the file
        // only without a PID namespace)
        const pid = Number(fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : 0)
        if (!ns && pid > 1 && pidAlive(pid)) process.kill(pid, 'SIGKILL')
        confined.cleanup()
      }
    })
  })
}
