// The attacks every local backend must refuse, run against the real
// provider through SandboxService.confine. Each test asserts the denial and
// that nothing changed on disk. Differences between backends (bwrap hides
// what Landlock refuses) are in the expected errors only, never in what may
// change.
import { spawn, spawnSync } from 'node:child_process'
import dgram from 'node:dgram'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { sandboxEnv } from '@dsh/sandbox'
import {
  cleanTemps, mountNamespace, NET_PROBE, outsideDir, pathTitle, procState, pidAlive, PTY_RUN, runConfined, startSandbox, TIOCSTI_PROBE, tmp, tree, type Sandbox,
} from './harness.js'
import { lacks, skipWhen } from '../backends.js'
import { noneLeftWith } from '../processes.js'
import { controlConnection, controlDatagram } from '../sandbox/control.js'

export async function attackSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} attack suite`)

  describe.skipIf(skip)(`attacks on the ${backend} backend${pathTitle()}`, () => {
    let sb: Sandbox
    let ws: string
    let out: string
    let secret: string
    beforeAll(async () => {
      sb = await startSandbox(backend)
    })
    afterAll(async () => {
      await sb?.stop()
    })
    let before: Record<string, string>
    const setup = () => {
      ws = tmp('ws')
      out = outsideDir()
      secret = path.join(out, 'secret')
      fs.writeFileSync(secret, 'secret')
      fs.mkdirSync(path.join(out, 'dir'))
      before = tree(out)
    }
    afterEach(() => {
      // the universal assertion: whatever the attack was, the outside is as it was
      if (out) expect(tree(out)).toEqual(before)
      cleanTemps()
    })

    const sh = async (script: string, opts: { mode?: 'read-only' | 'workspace-write'; network?: 'off' | 'on'; stdio?: any } = {}) => {
      const confined = await sb.confine(['/bin/sh', '-c', script], ws, opts.mode, opts.network)
      expect(confined.backend).toBe(backend)
      const run = await runConfined(confined, ws, { stdio: opts.stdio })
      return { ...run, confined, restored: confined.cleanup() }
    }

    it('the probe found this backend and it is the one chosen', async () => {
      setup()
      const status = await sb.service.probe()
      expect(status.chosen).toBe(backend)
      const probe = status.candidates.find((c) => c.name === backend)!.probe!
      expect(probe.available).toBe(true)
      expect(path.isAbsolute(probe.path!)).toBe(true)
    })

    it('a fake bwrap or landlock-run first on PATH is never run: binaries are resolved to absolute paths when probed', async () => {
      setup()
      const fake = tmp('fake-bin')
      const marker = path.join(fake, 'ran')
      for (const name of ['bwrap', 'landlock-run', 'sh']) {
        fs.writeFileSync(path.join(fake, name), `#!/bin/sh\necho fake > ${marker}\nexec "$@"\n`, { mode: 0o755 })
      }
      const saved = process.env.PATH
      process.env.PATH = `${fake}:${saved}`
      const fresh = await startSandbox(backend)
      try {
        const status = await fresh.service.probe()
        const probe = status.candidates.find((c) => c.name === backend)!.probe!
        expect(probe.available).toBe(true)
        expect(probe.path!.startsWith(fake)).toBe(false)
        const confined = await fresh.confine(['/bin/sh', '-c', `echo pwned > ${secret}`], ws)
        expect(confined.argv[0]).toBe(probe.path)
        expect(confined.argv.some((a) => a.startsWith(fake))).toBe(false)
        const r = await runConfined(confined, ws)
        expect(r.code).not.toBe(0)
        expect(fs.existsSync(marker)).toBe(false)
      } finally {
        process.env.PATH = saved
        await fresh.stop()
      }
    })

    describe('writing outside the writable roots', () => {
      const escapes: Array<[string, () => string]> = [
        ['a symlink planted in the workspace', () => `ln -s ${secret} link && echo pwned > link`],
        ['a symlink to the outside directory', () => `ln -s ${out} d && echo pwned > d/new`],
        ['a ".." path', () => `echo pwned > ${ws}/../../${path.relative('/', out)}/new; echo pwned > ../${path.relative(path.dirname(ws), secret)}`],
        ['/proc/self/root', () => `echo pwned > /proc/self/root${secret}; echo pwned > /proc/self/root${out}/new`],
        ['/proc/self/fd (reopening a read-only fd for writing)', () => `exec 3< ${secret}; echo pwned > /proc/self/fd/3; echo pwned >> /proc/self/fd/3`],
        ['/proc/self/cwd after cd outside', () => `cd ${out} && echo pwned > /proc/self/cwd/new`],
        ['renaming a workspace file over the outside one', () => `echo pwned > f && mv f ${secret}`],
        ['truncate and touch', () => `truncate -s 0 ${secret}; touch ${out}/new; mkdir ${out}/newdir`],
        ['removing outside entries', () => `rm -f ${secret}; rmdir ${out}/dir; rm -rf ${out}`],
        ['chmod and chown of outside files', () => `chmod 000 ${secret}; chmod 4755 ${secret}; chown 1:1 ${secret}`],
      ]
      for (const [how, script] of escapes) {
        it(`cannot write outside through ${how}`, async () => {
          setup()
          const mode = fs.statSync(secret).mode
          const r = await sh(script())
          expect(r.code, r.stderr).not.toBe(0)
          if (mountNamespace(backend) || !how.startsWith('chmod')) expect(fs.statSync(secret).mode).toBe(mode)
        })
      }

      it('documented limit (landlock): permission bits of outside files can change, never setuid/setgid or the owner', async () => {
        setup()
        fs.chmodSync(secret, 0o644)
        const r = await sh(`chmod 600 ${secret}; chmod u+s ${secret}; chown 1 ${secret}`)
        const st = fs.statSync(secret)
        expect(st.mode & 0o6000).toBe(0)
        expect(st.uid).toBe(process.getuid!())
        if (backend === 'landlock') {
          expect(r.confined.unenforced).toContain('metadata')
          expect(st.mode & 0o777).toBe(0o600)
        } else {
          expect(st.mode & 0o777).toBe(0o644) // read-only mount
        }
        fs.chmodSync(secret, 0o644)
        before = tree(out)
      })

      it('inherited fds (a writable file and a directory) are closed before the command runs', async () => {
        setup()
        const file = fs.openSync(secret, 'r+')
        const dir = fs.openSync(out, 'r')
        try {
          const r = await sh('echo pwned >&3; echo pwned >&4; echo pwned > /proc/self/fd/4/new; ls /proc/self/fd | tr "\\n" " "', {
            stdio: ['ignore', 'pipe', 'pipe', file, dir],
          })
          expect(r.stderr).toMatch(/3: Bad file descriptor/)
          expect(r.stdout.trim().split(' ').sort()).toEqual(['0', '1', '2', '3']) // 3 is ls's own directory fd
        } finally {
          fs.closeSync(file)
          fs.closeSync(dir)
        }
      })

      it('read-only mode: nothing in the workspace is written either', async () => {
        setup()
        fs.writeFileSync(path.join(ws, 'f'), 'keep')
        const inside = tree(ws)
        const r = await sh('echo pwned > f; echo pwned > new; mkdir d; rm f; ln -s /etc x', { mode: 'read-only' })
        expect(r.code).not.toBe(0)
        expect(tree(ws)).toEqual(inside)
      })
    })

    describe('hard links', () => {
      it('a hard link made inside the sandbox to an outside file is refused', async () => {
        setup()
        const r = await sh(`ln ${secret} hard && echo pwned > hard`)
        expect(r.code).not.toBe(0)
        expect(fs.statSync(secret).nlink).toBe(1)
      })

      it('documented limit: a hard link made before the call stays writable (in-process tools refuse nlink > 1)', async () => {
        setup()
        fs.linkSync(secret, path.join(ws, 'hard'))
        const r = await sh('echo through-link > hard')
        expect(r.code).toBe(0)
        expect(fs.readFileSync(secret, 'utf8')).toBe('through-link\n')
        fs.writeFileSync(secret, 'secret') // put it back for the outside check
      })
    })

    describe('protected paths inside the workspace', () => {
      const plant = () => {
        fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true })
        fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n')
        fs.mkdirSync(path.join(ws, '.claude'))
        fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{}')
      }
      const attacks: Array<[string, string]> = [
        ['written', 'echo "[core] hooksPath=/tmp" >> .git/config; echo "#!/bin/sh" > .git/hooks/x; echo "{\\"hooks\\":1}" > .claude/settings.json'],
        ['removed', 'rm -f .git/config .claude/settings.json; rm -rf .git/hooks; rm -rf .git .claude'],
        ['moved away', 'mv .git gone; mv .claude gone2; mv .git/config c'],
        ['replaced by a symlink', `rm -rf .git && ln -s ${out} .git; mv .claude x; ln -sfn ${out} .claude`],
        ['replaced by a new directory', 'mv .git old && mkdir -p .git/hooks && echo x > .git/hooks/pre-commit'],
      ]
      for (const [how, script] of attacks) {
        it(`.git/config, .git/hooks and .claude/settings.json ${how}`, async () => {
          setup()
          plant()
          const guarded = () => Object.fromEntries(Object.entries(tree(ws)).filter(([k]) => /^\.(git|claude)(\/|$)/.test(k)))
          const inside = guarded()
          const r = await sh(script)
          if (backend === 'landlock') {
            // Landlock cannot deny beneath a writable root: reported, never claimed
            expect(r.confined.enforcement).toBe('partial')
            expect(r.confined.unenforced).toContain('protected-paths')
            return
          }
          expect(r.code).not.toBe(0)
          expect(guarded()).toEqual(inside)
        })
      }

      it('a protected path that did not exist cannot outlast the call (created, then removed)', async () => {
        setup()
        const r = await sh('mkdir -p .git/hooks && echo "#!/bin/sh" > .git/hooks/post-checkout && mkdir .codex && echo "{}" > .mcp.json; echo made')
        expect(r.stdout).toContain('made')
        expect(r.confined.unenforced).toContain(mountNamespace(backend) ? 'absent-protected-paths' : 'protected-paths')
        expect(r.restored.sort()).toEqual(['.codex', '.git', '.mcp.json'].map((n) => path.join(ws, n)))
        expect(fs.readdirSync(ws)).toEqual([])
      })

      it('a protected symlink replaced during the call is put back', async () => {
        setup()
        fs.symlinkSync(out, path.join(ws, '.claude'))
        const r = await sh('rm .claude; mkdir .claude; echo "{}" > .claude/settings.json')
        expect(r.confined.unenforced).toContain(mountNamespace(backend) ? 'protected-symlinks' : 'protected-paths')
        expect(fs.readlinkSync(path.join(ws, '.claude'))).toBe(out)
        expect(r.restored).toEqual([path.join(ws, '.claude')])
      })
    })

    describe('network off', () => {
      let tools: string
      let tcp: net.Server
      let tcpPort = 0
      let connections = 0
      beforeAll(async () => {
        tools = fs.realpathSync(fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'dsh-adv-net-')))
        fs.writeFileSync(path.join(tools, 'net.pl'), NET_PROBE)
        tcp = net.createServer((s) => {
          connections++
          s.destroy()
        })
        await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
        tcpPort = (tcp.address() as net.AddressInfo).port
      })
      afterAll(() => {
        tcp.close()
        fs.rmSync(tools, { recursive: true, force: true })
      })
      const perl = (...args: string[]) => sh(`/usr/bin/perl ${tools}/net.pl ${args.join(' ')}`)

      it('TCP to a listening localhost server', async () => {
        setup()
        const before = connections
        const r = await perl('tcp', String(tcpPort))
        expect(r.stdout).toBe('EACCES\n')
        await controlConnection({ host: '127.0.0.1', port: tcpPort }, () => connections, before)
        expect(connections).toBe(before + 1)
        // the control: the same program outside the sandbox connects
        expect(spawnSync('/usr/bin/perl', [`${tools}/net.pl`, 'tcp', String(tcpPort)], { encoding: 'utf8' }).stdout).toBe('ok\n')
      })

      it('UDP to a local socket', async () => {
        setup()
        const udp = dgram.createSocket('udp4')
        let received = 0
        udp.on('message', () => received++)
        await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r))
        try {
          const r = await perl('udp', String(udp.address().port))
          expect(r.stdout).toBe('EACCES\n')
          await controlDatagram(udp.address().port, () => received, 0)
          expect(received).toBe(1)
        } finally {
          udp.close()
        }
      })

      it('an abstract unix socket and a pathname unix socket outside (think /run/docker.sock)', async () => {
        setup()
        let hits = 0
        const servers = [net.createServer((s) => (hits++, s.destroy())), net.createServer((s) => (hits++, s.destroy()))]
        const name = `dsh-adv-${process.pid}-${Date.now()}`
        const sock = path.join(tools, 'control.sock')
        await new Promise<void>((r) => servers[0].listen(`\0${name}`, r))
        await new Promise<void>((r) => servers[1].listen(sock, r))
        try {
          expect((await perl('abstract', name)).stdout).toBe('EACCES\n')
          expect((await perl('unix', sock)).stdout).toBe('EACCES\n')
          await controlConnection({ path: `\0${name}` }, () => hits, 0)
          await controlConnection({ path: sock }, () => hits, 1)
          expect(hits).toBe(2)
        } finally {
          for (const s of servers) s.close()
        }
      })
      it('a unix server for host clients: squatting an abstract name, planting a socket file', async () => {
        setup()
        const name = `dsh-adv-squat-${process.pid}-${Date.now()}`
        expect((await perl('bind_abstract', name)).stdout).toBe('EACCES\n')
        expect((await perl('bind_path', path.join(ws, 'agent.sock'))).stdout).toBe('EACCES\n')
        expect(fs.readdirSync(ws)).toEqual([])
        // the name is still free on the host
        const server = net.createServer()
        await new Promise<void>((r, reject) => server.once('error', reject).listen(`\0${name}`, r))
        server.close()
      })
    })

    describe('processes outside', () => {
      it('cannot kill, stop or ptrace the parent or an unrelated process', async () => {
        setup()
        const victim = spawn('sleep', ['30'], { stdio: 'ignore' })
        try {
          const v = victim.pid!
          const r = await sh([
            `kill -0 ${v}; echo "a=$?"`, `kill -STOP ${v}; echo "b=$?"`, `kill -KILL ${v}; echo "c=$?"`,
            `kill -KILL $PPID; echo "d=$?"`, `kill -STOP ${process.pid}; echo "e=$?"`,
            // strace exits 1 when it cannot attach; attached, it would run until timeout stops it (124)
            `/usr/bin/timeout 1 /usr/bin/strace -p ${v} -e trace=none -o /dev/null; echo "f=$?"`,
            `/usr/bin/timeout 1 /usr/bin/strace -p $PPID -e trace=none -o /dev/null; echo "g=$?"`,
          ].join('; '))
          for (const k of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) expect(r.stdout, r.stderr).toContain(`${k}=1`)
          expect(r.stderr.match(/strace: attach: ptrace\(PTRACE_SEIZE, \d+\): (Operation not permitted|No such process)/g)).toHaveLength(2)
          expect(pidAlive(v)).toBe(true)
          expect(procState(v)).toEqual({ state: 'S', tracer: 0 })
          expect(procState(process.pid).tracer).toBe(0)
        } finally {
          victim.kill('SIGKILL')
        }
      })

      it('a setsid grandchild does not outlive the call, and never writes later', async () => {
        setup()
        // a sleep argument of their own: both are found by it in /proc, whatever their pid namespace
        const token = `1.${String(process.pid).padStart(7, '0')}2`
        const r = await sh(`setsid sh -c "sleep ${token}; echo late > late" > /dev/null 2>&1 & echo $!; (nohup sh -c "sleep ${token}; echo late2 > late2" >/dev/null 2>&1 &)`)
        expect(r.code).toBe(0)
        // gone, not slept on: left alive, each writes its file before it ends
        expect(await noneLeftWith(token)).toBe(true)
        expect(fs.readdirSync(ws)).toEqual([])
      })
    })

    describe('privileges and the filesystem view', () => {
      it('mknod of a block device in the workspace', async () => {
        setup()
        const r = await sh('mknod disk b 8 0; mknod null c 1 3; ls')
        expect(r.stderr.match(/mknod: /g)).toHaveLength(2)
        expect(fs.readdirSync(ws)).toEqual([])
      })

      it('remount / read-write, unshare -m, chroot', async () => {
        setup()
        const r = await sh([
          'mount -o remount,rw / && echo remounted',
          'mount -o remount,rw,bind / && echo remounted-bind',
          `unshare -m sh -c "mount -o remount,rw / && echo x > ${out}/new" && echo unshared`,
          `unshare -Urm sh -c "mount -t tmpfs none ${out} && echo mounted; mount --bind ${ws} ${out}/dir && echo bound"`,
          'chroot / /bin/true && echo chrooted',
        ].join('; '))
        expect(r.stdout).not.toMatch(/remounted|unshared|mounted|bound|chrooted/)
        expect(fs.existsSync('/dsh-adv-probe')).toBe(false)
      })

      it.skipIf(skipWhen(!fs.existsSync('/usr/bin/python3'), 'the terminal attack', 'python3 is not in /usr/bin'))('cannot push keystrokes into the caller\'s terminal (TIOCSTI), and has no controlling terminal', async () => {
        setup()
        const tools = tmp('tty', '/var/tmp')
        fs.writeFileSync(path.join(tools, 'sti.py'), TIOCSTI_PROBE)
        const confined = await sb.confine(['/usr/bin/python3', path.join(tools, 'sti.py')], ws)
        // the caller runs it on a pseudo-terminal that is the caller's controlling terminal
        const inPty = (argv: readonly string[]) => spawnSync('/usr/bin/python3', [PTY_RUN, ...argv], { cwd: ws, env: sandboxEnv(ws), encoding: 'utf8', timeout: 15_000 }).stdout
        const r = inPty(confined.argv)
        confined.cleanup()
        expect(r).toContain('tty_nr=0')
        expect(r).toContain('TIOCSTI=EPERM')
        // the control: the same program, unconfined on the same kind of terminal, can inject
        expect(inPty(['/usr/bin/python3', path.join(tools, 'sti.py')])).toContain('TIOCSTI=ok')
      })

      it('runs without capabilities, with no_new_privs and a seccomp filter', async () => {
        setup()
        const r = await sh('grep -E "^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status')
        const fields = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(/:\s+/)))
        expect(fields).toEqual({ CapPrm: '0000000000000000', CapEff: '0000000000000000', CapBnd: '0000000000000000', NoNewPrivs: '1', Seccomp: '2' })
      })

      it('the host /tmp is neither visible nor writable', async () => {
        setup()
        const hostFile = path.join(os.tmpdir(), `dsh-adv-host-${process.pid}-${Date.now()}`)
        fs.writeFileSync(hostFile, 'host-secret')
        const made = path.join(os.tmpdir(), `dsh-adv-made-${process.pid}-${Date.now()}`)
        try {
          const r = await sh(`cat ${hostFile}; ls /tmp; echo pwned > ${made}; echo pwned > ${hostFile}`)
          expect(r.stdout).not.toContain('host-secret')
          expect(r.stdout).not.toContain(path.basename(hostFile))
          expect(fs.existsSync(made)).toBe(false)
          expect(fs.readFileSync(hostFile, 'utf8')).toBe('host-secret')
        } finally {
          fs.rmSync(hostFile, { force: true })
          fs.rmSync(made, { force: true })
        }
      })

      it('environment overrides in the command change nothing, and the host environment is not there', async () => {
        setup()
        process.env.DSH_ADV_HOST_MARKER = 'leaked'
        try {
          const r = await sh(`env | sort; LD_PRELOAD=${secret} BASH_ENV=${secret} ENV=${secret} sh -c 'echo pwned > ${secret}'; env -i PATH=/bin sh -c 'echo pwned > ${out}/new'`)
          expect(r.stdout).not.toContain('DSH_ADV_HOST_MARKER')
          expect(r.stdout).not.toMatch(/^(LD_PRELOAD|NODE_OPTIONS|BASH_ENV)=/m)
          expect(r.code).not.toBe(0)
        } finally {
          delete process.env.DSH_ADV_HOST_MARKER
        }
      })
    })
  })
}
