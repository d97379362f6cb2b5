// Attacks on the real native/landlock-run binary. Every test builds its own
// temp dirs outside the rules and expects the attack to be refused.
import { spawn, spawnSync, type StdioOptions } from 'node:child_process'
import dgram from 'node:dgram'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { noneLeftWith, pidAlive } from '../processes.js'
import { controlConnection } from './control.js'

const dir = path.resolve(fileURLToPath(import.meta.url), '../../../native/landlock-run')
const bin = path.join(dir, 'landlock-run')

interface Probe {
  abi: number
  errata: number
  handled_fs: string[]
  handled_net: string[]
  scoped: string[]
  seccomp: boolean
  limits: string[]
}

// Built and probed while collecting: describe.skipIf needs the answer then.
// make is incremental, so an edited main.c is rebuilt before the run.
function buildAndProbe(): { probe?: Probe; reason?: string } {
  if (process.platform !== 'linux') return { reason: 'Landlock is Linux only' }
  const make = spawnSync('make', ['-s', '-C', dir], { encoding: 'utf8' })
  if (make.status !== 0) throw new Error(`make -C ${dir} failed:\n${make.stderr}`)
  const probe = spawnSync(bin, ['--probe'], { encoding: 'utf8' })
  if (probe.status === 125) return { reason: probe.stderr.trim() }
  if (probe.status !== 0) throw new Error(`--probe exited ${probe.status}: ${probe.stderr}`)
  return { probe: JSON.parse(probe.stdout) as Probe }
}

const built = buildAndProbe()
if (!built.probe) console.warn(`skipping landlock-run tests: ${built.reason}`)
const abi = built.probe?.abi ?? 0

// What /bin/sh, coreutils and perl need to start; /dev/null is writable. By real path: the
// launcher refuses a rule on a symbolic link (/bin -> usr/bin where /usr is merged)
const BASE = [
  ...[...new Set(['/usr', '/lib', '/lib64', '/bin', '/etc', '/proc', '/dev'].filter((p) => fs.existsSync(p)).map((p) => fs.realpathSync(p)))]
    .flatMap((p) => ['--ro', p]),
  '--rw',
  '/dev/null',
]

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

interface Started {
  pid: number
  done: Promise<Run>
}

function start(args: string[], opts: { stdio?: StdioOptions; timeoutMs?: number } = {}): Started {
  const child = spawn(bin, args, { stdio: opts.stdio ?? ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d: Buffer) => (stdout += d))
  child.stderr?.on('data', (d: Buffer) => (stderr += d))
  const done = new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 10_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
  return { pid: child.pid ?? 0, done }
}

const run = (args: string[], opts?: Parameters<typeof start>[1]) => start(args, opts).done

/** Signal a launcher we started. Never pid 0: that would hit our own process group. */
function signal(started: Started, sig: NodeJS.Signals): void {
  if (!(started.pid > 0)) throw new Error('the launcher did not start')
  process.kill(started.pid, sig)
}

/** `sh -c script` confined by BASE plus `rules`. */
function sh(rules: string[], script: string, opts?: Parameters<typeof start>[1]): Promise<Run> {
  return startSh(rules, script, opts).done
}

function startSh(rules: string[], script: string, opts?: Parameters<typeof start>[1]): Started {
  return start([...BASE, ...rules, '--', '/bin/sh', '-c', script], opts)
}

const temps: string[] = []
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-landlock-'))
  temps.push(d)
  return d
}
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function waitFor<T>(what: string, get: () => T | undefined, ms = 5000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) {
    const v = get()
    if (v !== undefined) return v
  }
  throw new Error(`timed out waiting for ${what}`)
}

const readPid = (file: string) => () => {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : ''
  return /^\d+$/.test(text) ? Number(text) : undefined
}

// one perl script for every socket attack: prints "ok" or the errno name
const NET_PROBE = fs.readFileSync(path.join(import.meta.dirname, '../fixtures/net-probe.pl'), 'utf8')

// Raw x86_64 syscalls for the metadata filter: prints "ok" or the errno name.
// Numbers, not libc wrappers, so that each syscall is attacked by itself.
const META_PROBE = `
use strict;
my ($op, $path, $mode) = @ARGV; $mode = oct($mode // "0");
sub fail { my ($n) = grep { $!{$_} } keys %!; print(($n // "E?") . "\\n"); exit 3 }
my $AT = -100; my $CREAT = 0101; my $S_IFREG = 0100000;
my %call = (
  chmod => sub { syscall(90, $path, $mode) },
  fchmod => sub { open(my $f, "<", $path) or fail(); syscall(91, fileno($f), $mode) },
  fchmodat => sub { syscall(268, $AT, $path, $mode) },
  fchmodat2 => sub { syscall(452, $AT, $path, $mode, 0) },
  creat => sub { syscall(85, $path, $mode) },
  open => sub { syscall(2, $path, $CREAT, $mode) },
  openat => sub { syscall(257, $AT, $path, $CREAT, $mode) },
  tmpfile => sub { syscall(257, $AT, $path, 020200002, $mode) },
  mknod => sub { syscall(133, $path, $S_IFREG | $mode, 0) },
  mknodat => sub { syscall(259, $AT, $path, $S_IFREG | $mode, 0) },
  chown => sub { syscall(92, $path, 0, 0) },
  lchown => sub { syscall(94, $path, 0, 0) },
  fchown => sub { open(my $f, "<", $path) or fail(); syscall(93, fileno($f), 0, 0) },
  fchownat => sub { syscall(260, $AT, $path, 0, 0, 0) },
  openat2 => sub { my $how = pack("QQQ", $CREAT | 1, $mode, 0); syscall(437, $AT, $path, $how, 24) },
);
my $r = $call{$op}->();
$r == -1 and fail();
print "ok\\n";
`

describe.skipIf(!built.probe)('landlock-run', () => {
  let tools: string
  let netProbe: string
  let metaProbe: string
  beforeAll(() => {
    tools = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-landlock-tools-'))
    netProbe = path.join(tools, 'net-probe.pl')
    fs.writeFileSync(netProbe, NET_PROBE)
    metaProbe = path.join(tools, 'meta-probe.pl')
    fs.writeFileSync(metaProbe, META_PROBE)
  })
  afterAll(() => fs.rmSync(tools, { recursive: true, force: true }))

  const perl = (rules: string[], ...args: string[]) =>
    run([...BASE, '--ro', tools, ...rules, '--', '/usr/bin/perl', netProbe, ...args])

  describe('--probe and the command line', () => {
    it('--probe prints one JSON line naming the ABI, handled rights, scopes and limits', () => {
      const p = built.probe!
      expect(p.abi).toBeGreaterThanOrEqual(1)
      expect(p.handled_fs).toContain('write_file')
      if (p.abi >= 4) expect(p.handled_net).toEqual(['bind_tcp', 'connect_tcp'])
      if (p.abi >= 6) expect(p.scoped).toEqual(['abstract_unix_socket', 'signal'])
      if (p.abi < 9) expect(p.limits).toContain('pathname-unix-connect')
      const raw = spawnSync(bin, ['--probe'], { encoding: 'utf8' }).stdout
      expect(raw.trim().split('\n')).toHaveLength(1)
    })

    it('--help prints usage on stdout and exits 0', () => {
      const r = spawnSync(bin, ['--help'], { encoding: 'utf8' })
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/^usage: landlock-run /)
    })

    const refusals: Array<[string, (rw: string) => string[]]> = [
      ['an unknown flag', (rw) => ['--bogus', '--rw', rw]],
      ['a --ro path that does not exist', (rw) => ['--ro', '/nonexistent/dsh', '--rw', rw]],
      ['a --min-abi above the kernel', (rw) => ['--min-abi', String(abi + 1), '--rw', rw]],
      ['a malformed --min-abi', (rw) => ['--min-abi', '7x', '--rw', rw]],
      ['a flag without its argument', () => ['--rw']],
      ['an --env without "="', (rw) => ['--env', 'PATH', '--rw', rw]],
      ['an --env with an empty name', (rw) => ['--env', '=x', '--rw', rw]],
      ['an --env-from of a variable the launcher\'s environment lacks', (rw) => ['--env-from', 'DSH_SURELY_UNSET_VARIABLE', '--rw', rw]],
      ['an --env-from that is not a name', (rw) => ['--env-from', 'A=b', '--rw', rw]],
      ['a --limit of an unknown resource', (rw) => ['--limit', 'memory=1', '--rw', rw]],
      ['a --limit that is not a positive integer', (rw) => ['--limit', 'nofile=-1', '--rw', rw]],
      ['a --limit of zero', (rw) => ['--limit', 'nproc=0', '--rw', rw]],
      ['--no-supervisor outside a PID namespace of its own', (rw) => ['--no-supervisor', '--rw', rw]],
      ['a --mount-rw without --namespaces', (rw) => ['--mount-rw', rw, '--rw', rw]],
      ['a relative --mount-ro', (rw) => ['--namespaces', '--mount-ro', 'rel', '--rw', rw]],
      ['--namespaces with --no-supervisor', (rw) => ['--namespaces', '--no-supervisor', '--rw', rw]],
      ['--namespaces with a working directory not in the new root', (rw) => ['--namespaces', '--chdir', rw, '--rw', rw]],
      ['a --hide without --namespaces', (rw) => ['--hide', rw, '--rw', rw]],
      ['a relative --hide', (rw) => ['--namespaces', '--hide', 'rel', '--rw', rw]],
      ['an --exec-match without --exec-program', (rw) => ['--exec-notify', `${rw}/s`, '--exec-match', 'git sgit', '--rw', rw]],
      ['an --exec-match item of an unknown kind', (rw) => ['--exec-notify', `${rw}/s`, '--exec-program', 'git', '--exec-match', 'git xgit', '--rw', rw]],
      ['an --exec-match short-flag item of two letters', (rw) => ['--exec-notify', `${rw}/s`, '--exec-program', 'git', '--exec-match', 'git fab', '--rw', rw]],
      ['an --exec-match with an empty item', (rw) => ['--exec-notify', `${rw}/s`, '--exec-program', 'git', '--exec-match', 'git  sgit', '--rw', rw]],
      // Why refused: covering the link would leave what it names readable
      ['a --hide of a symbolic link', (rw) => {
        fs.symlinkSync('/etc/hostname', path.join(rw, 'link'))
        return ['--namespaces', '--chdir', rw, '--mount-rw', rw, '--hide', path.join(rw, 'link'), '--rw', rw]
      }],
    ]
    for (const [what, flags] of refusals) {
      it(`${what}: exit 125, one line on stderr, and the command never ran`, async () => {
        const rw = tmp()
        const marker = path.join(rw, 'ran')
        const r = await run([...BASE, ...flags(rw), '--', '/bin/sh', '-c', `touch ${marker}`])
        expect(r.code).toBe(125)
        expect(r.stderr).toMatch(/^landlock-run: .+\n$/)
        expect(fs.existsSync(marker)).toBe(false)
      })
    }

    it('the command gets exactly the --env entries, none of the environment the launcher was started with', async () => {
      const withEnv = await run([...BASE, '--env', 'PATH=/usr/bin:/bin', '--env', 'A=b=c', '--', '/usr/bin/env'])
      expect(withEnv.stdout.trim().split('\n').sort()).toEqual(['A=b=c', 'PATH=/usr/bin:/bin'])
      const none = await run([...BASE, '--', '/usr/bin/env'])
      expect([none.code, none.stdout]).toEqual([0, ''])
    })

    it('--env-from NAME copies NAME from the launcher\'s own environment (a secret kept out of its argv), and nothing else of it', async () => {
      process.env.DSH_ENV_FROM_TEST = 'dsh:s3cr=t@127.0.0.1'
      try {
        const r = await run([...BASE, '--env', 'PATH=/usr/bin:/bin', '--env-from', 'DSH_ENV_FROM_TEST', '--', '/usr/bin/env'])
        expect(r.stdout.trim().split('\n').sort()).toEqual(['DSH_ENV_FROM_TEST=dsh:s3cr=t@127.0.0.1', 'PATH=/usr/bin:/bin'])
      } finally {
        delete process.env.DSH_ENV_FROM_TEST
      }
    })

    it('--limit sets the soft and hard limit alike, clamped to the current hard limit', async () => {
      const r = await run([...BASE, '--limit', 'nofile=64', '--limit', 'cpu=99999999999', '--', '/bin/sh', '-c', 'ulimit -Sn; ulimit -Hn; ulimit -St; ulimit -Ht'])
      const hardCpu = spawnSync('/bin/sh', ['-c', 'ulimit -Ht'], { encoding: 'utf8' }).stdout.trim()
      expect(r.stdout.trim().split('\n')).toEqual(['64', '64', hardCpu === 'unlimited' ? '99999999999' : hardCpu, hardCpu === 'unlimited' ? '99999999999' : hardCpu])
    })

    it('no command after -- is a launcher error', async () => {
      expect((await run([...BASE, '--'])).code).toBe(125)
      expect((await run([...BASE])).code).toBe(125)
    })

    it('exit statuses: the command’s own, 128+signal, 127 not found, 126 not executable', async () => {
      const rw = tmp()
      fs.writeFileSync(path.join(rw, 'plain'), 'echo hi\n', { mode: 0o644 })
      expect((await sh([], 'exit 7')).code).toBe(7)
      expect((await sh([], 'kill -KILL $$')).code).toBe(137)
      const missing = await run([...BASE, '--', '/nonexistent/cmd'])
      expect(missing.code).toBe(127)
      expect(missing.stderr).toMatch(/^landlock-run: cannot execute \/nonexistent\/cmd: /)
      expect((await run([...BASE, '--rw', rw, '--', path.join(rw, 'plain')])).code).toBe(126)
    })

    it('a script without "#!" and 200,000 arguments runs (execvp retries it with /bin/sh, building argv on the child\'s stack)', async () => {
      const dir = tmp()
      fs.writeFileSync(path.join(dir, 'noshebang'), 'echo $#\n', { mode: 0o755 })
      const args = Array.from({ length: 200_000 }, () => 'x')
      const r = await run([...BASE, '--ro', dir, '--', path.join(dir, 'noshebang'), ...args])
      expect([r.code, r.signal, r.stdout]).toEqual([0, null, '200000\n'])
    })
  })

  describe('filesystem', () => {
    it('reads allowed paths and writes inside --rw', async () => {
      const rw = tmp()
      const r = await sh(['--rw', rw], `head -c 4 /etc/passwd && echo made > ${rw}/new && cat ${rw}/new`)
      expect(r.code).toBe(0)
      expect(r.stdout).toBe('rootmade\n')
    })

    it('cannot read or write outside the rules', async () => {
      const [rw, out] = [tmp(), tmp()]
      fs.writeFileSync(path.join(out, 'f'), 'secret')
      const r = await sh(['--rw', rw], `cat ${out}/f; echo x > ${out}/f; echo x > ${out}/new; ls ${out}`)
      expect(r.stdout).not.toContain('secret')
      expect(r.stderr.match(/Permission denied/g)).toHaveLength(4)
      expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('secret')
      expect(fs.existsSync(path.join(out, 'new'))).toBe(false)
    })

    it('--ro grants no write, truncate, create or delete', async () => {
      const ro = tmp()
      fs.writeFileSync(path.join(ro, 'f'), 'keep')
      const r = await sh(['--ro', ro], `cat ${ro}/f; : > ${ro}/f; truncate -s 0 ${ro}/f; rm ${ro}/f; mkdir ${ro}/d`)
      expect(r.stdout).toBe('keep')
      expect(fs.readFileSync(path.join(ro, 'f'), 'utf8')).toBe('keep')
      expect(fs.readdirSync(ro)).toEqual(['f'])
    })

    const escapes: Array<[string, (rw: string, out: string) => string]> = [
      ['a symlink planted inside the rw root', (rw, out) => `ln -s ${out}/f ${rw}/link && echo pwned > ${rw}/link`],
      ['a ".." path', (rw, out) => `echo pwned > ${rw}/../${path.basename(out)}/f`],
      ['/proc/self/root', (_rw, out) => `echo pwned > /proc/self/root${out}/f`],
      ['renaming a file out of the rw root', (rw, out) => `echo pwned > ${rw}/g && mv ${rw}/g ${out}/f`],
    ]
    for (const [how, script] of escapes) {
      it(`cannot write outside through ${how}`, async () => {
        const [rw, out] = [tmp(), tmp()]
        fs.writeFileSync(path.join(out, 'f'), 'secret')
        const r = await sh(['--rw', rw], script(rw, out))
        expect(r.code).not.toBe(0)
        expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('secret')
      })
    }

    it('a hard link made inside the sandbox to an outside file is refused (LINK/REFER)', async () => {
      const [rw, out] = [tmp(), tmp()]
      fs.writeFileSync(path.join(out, 'f'), 'secret')
      const r = await sh(['--rw', rw], `ln ${out}/f ${rw}/hard && echo pwned > ${rw}/hard`)
      expect(r.code).not.toBe(0)
      expect(fs.existsSync(path.join(rw, 'hard'))).toBe(false)
      expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('secret')
    })

    it('documented limit: a hard link made before the call stays writable', async () => {
      const [rw, out] = [tmp(), tmp()]
      fs.writeFileSync(path.join(out, 'f'), 'secret')
      fs.linkSync(path.join(out, 'f'), path.join(rw, 'hard'))
      expect(built.probe!.limits).toContain('preexisting-hardlinks')
      const r = await sh(['--rw', rw], `echo through-link > ${rw}/hard`)
      expect(r.code).toBe(0)
      expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('through-link\n')
    })

    it('an inherited writable fd is closed before exec', async () => {
      const [rw, out] = [tmp(), tmp()]
      const target = path.join(out, 'f')
      const fd = fs.openSync(target, 'w')
      try {
        const r = await sh(['--rw', rw], 'echo pwned >&3; echo pwned >&4; ls /proc/self/fd', {
          stdio: ['ignore', 'pipe', 'pipe', fd, fd],
        })
        expect(r.stderr).toMatch(/3: Bad file descriptor/)
        expect(r.stdout.trim().split('\n').sort()).toEqual(['0', '1', '2', '3'])
      } finally {
        fs.closeSync(fd)
      }
      expect(fs.readFileSync(target, 'utf8')).toBe('')
    })

    it('documented limit: metadata (chmod, utime) of outside files can still change', async () => {
      const out = tmp()
      fs.writeFileSync(path.join(out, 'f'), 'secret', { mode: 0o644 })
      expect(built.probe!.limits).toContain('metadata-changes')
      const r = await sh([], `chmod 600 ${out}/f && touch -m -d @0 ${out}/f`)
      expect(r.code).toBe(0)
      const st = fs.statSync(path.join(out, 'f'))
      expect(st.mode & 0o777).toBe(0o600)
      expect(st.mtimeMs).toBe(0)
      expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('secret')
    })

    it('a closed stdin is reopened on /dev/null, not handed to the next open()', async () => {
      const script = `exec 0<&-; exec ${[bin, ...BASE].join(' ')} -- /bin/sh -c 'readlink /proc/self/fd/0'`
      const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8' })
      expect(r.status).toBe(0)
      expect(r.stdout).toBe('/dev/null\n')
    })

    it('cannot create block or character devices in the rw root', async () => {
      const rw = tmp()
      const r = await sh(['--rw', rw], `mknod ${rw}/disk b 8 0; mknod ${rw}/null c 1 3; mkfifo ${rw}/fifo`)
      expect(r.stderr.match(/mknod: .*(Permission denied|Operation not permitted)/g)).toHaveLength(2)
      expect(fs.readdirSync(rw)).toEqual(['fifo'])
    })
  })

  describe.skipIf(process.arch !== 'x64')('metadata filter (always on)', () => {
    const meta = (rules: string[], ...args: string[]) =>
      run([...BASE, '--ro', tools, ...rules, '--', '/usr/bin/perl', metaProbe, ...args])
    const modeOf = (file: string) => fs.statSync(file).mode & 0o7777

    it('refuses the setuid and setgid bits through every chmod syscall, in an rw root and under a ro rule', async () => {
      const [rw, out] = [tmp(), tmp()]
      for (const d of [rw, out]) fs.copyFileSync('/bin/true', path.join(d, 't'))
      for (const d of [rw, out]) fs.chmodSync(path.join(d, 't'), 0o755)
      for (const op of ['chmod', 'fchmod', 'fchmodat', 'fchmodat2'])
        for (const mode of ['4755', '2755', '6755', '4000'])
          for (const d of [rw, out]) {
            // --ro: Landlock lets fchmod's fd open, and never controls chmod itself
            const r = await meta(['--rw', rw, '--ro', out], op, path.join(d, 't'), mode)
            expect(r.stdout, `${op} ${mode} ${d === rw ? 'rw' : 'ro'}`).toBe('EPERM\n')
            expect(modeOf(path.join(d, 't'))).toBe(0o755)
          }
      // the control: ordinary permission bits still change inside the rw root
      expect((await meta(['--rw', rw], 'fchmodat2', path.join(rw, 't'), '700')).stdout).toBe('ok\n')
      expect(modeOf(path.join(rw, 't'))).toBe(0o700)
    })

    it('the shell way (chmod u+s, g+s) is refused too, also outside every rule', async () => {
      const [rw, out] = [tmp(), tmp()]
      for (const d of [rw, out]) fs.copyFileSync('/bin/true', path.join(d, 't'))
      for (const d of [rw, out]) fs.chmodSync(path.join(d, 't'), 0o755)
      const r = await sh(['--rw', rw], `chmod u+s ${rw}/t; chmod g+s ${rw}/t; chmod 4755 ${rw}/t; chmod 4755 ${out}/t`)
      expect(r.stderr.match(/Operation not permitted/g)).toHaveLength(4)
      for (const d of [rw, out]) expect(modeOf(path.join(d, 't'))).toBe(0o755)
    })

    it('refuses creating a setuid or setgid file (open, openat, creat, O_TMPFILE, mknod, mknodat)', async () => {
      const rw = tmp()
      for (const op of ['open', 'openat', 'creat', 'mknod', 'mknodat'])
        for (const mode of ['4755', '2755']) {
          const r = await meta(['--rw', rw], op, path.join(rw, `${op}-${mode}`), mode)
          expect(r.stdout, `${op} ${mode}`).toBe('EPERM\n')
        }
      expect((await meta(['--rw', rw], 'tmpfile', rw, '4755')).stdout).toBe('EPERM\n')
      expect(fs.readdirSync(rw)).toEqual([])
      // the control: the same calls without the bits create files
      for (const op of ['open', 'openat', 'creat', 'mknodat'])
        expect((await meta(['--rw', rw], op, path.join(rw, op), '755')).stdout, op).toBe('ok\n')
      expect(fs.readdirSync(rw).sort()).toEqual(['creat', 'mknodat', 'open', 'openat'])
      for (const f of fs.readdirSync(rw)) expect(modeOf(path.join(rw, f)) & 0o6000).toBe(0)
    })

    it('refuses chown in every form, even to the owner the file already has', async () => {
      const rw = tmp()
      fs.writeFileSync(path.join(rw, 'f'), 'x')
      fs.symlinkSync('f', path.join(rw, 'l'))
      const before = fs.lstatSync(path.join(rw, 'f'))
      for (const op of ['chown', 'lchown', 'fchown', 'fchownat'])
        expect((await meta(['--rw', rw], op, path.join(rw, op === 'lchown' ? 'l' : 'f'))).stdout, op).toBe('EPERM\n')
      const r = await sh(['--rw', rw], `chgrp 0 ${rw}/f; chown 0:0 ${rw}/f`)
      expect(r.stderr.match(/Operation not permitted/g)).toHaveLength(2)
      const after = fs.lstatSync(path.join(rw, 'f'))
      expect([after.uid, after.gid, after.ctimeMs]).toEqual([before.uid, before.gid, before.ctimeMs])
    })

    it('openat2 reports ENOSYS (its mode sits in a struct seccomp cannot read); outside it works', async () => {
      const rw = tmp()
      expect((await meta(['--rw', rw], 'openat2', path.join(rw, 'x'), '4755')).stdout).toBe('ENOSYS\n')
      expect((await meta(['--rw', rw], 'openat2', path.join(rw, 'y'), '644')).stdout).toBe('ENOSYS\n')
      expect(fs.readdirSync(rw)).toEqual([])
      const bare = spawnSync('/usr/bin/perl', [metaProbe, 'openat2', path.join(rw, 'z'), '644'], { encoding: 'utf8' })
      expect(bare.stdout).toBe('ok\n')
    })
  })

  describe('privileges', () => {
    it('runs with no capabilities at all and no_new_privs set', async () => {
      const r = await sh([], 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):" /proc/self/status')
      const fields = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split(/:\s+/)))
      expect(fields).toEqual({
        CapInh: '0000000000000000',
        CapPrm: '0000000000000000',
        CapEff: '0000000000000000',
        CapBnd: '0000000000000000',
        CapAmb: '0000000000000000',
        NoNewPrivs: '1',
      })
    })
  })

  describe.skipIf(abi < 6)('signals (scoping, ABI >= 6)', () => {
    it('cannot signal the test process, an unrelated process, or its own supervisor', async () => {
      const victim = spawn('sleep', ['30'], { stdio: 'ignore' })
      try {
        const r = await sh(
          [],
          `kill -0 ${process.pid}; echo "a=$?"; kill -STOP ${victim.pid}; echo "b=$?"; kill -KILL $PPID; echo "c=$?"`,
        )
        expect(r.stdout).toBe('a=1\nb=1\nc=1\n')
        expect(r.stderr.match(/Operation not permitted/g)).toHaveLength(3)
        const state = fs.readFileSync(`/proc/${victim.pid}/stat`, 'utf8').split(') ')[1][0]
        expect(state).toBe('S')
      } finally {
        victim.kill('SIGKILL')
      }
    })
  })

  describe('network', () => {
    let tcp: net.Server
    let tcpPort = 0
    let tcpConnections = 0
    beforeAll(async () => {
      tcp = net.createServer((s) => {
        tcpConnections++
        s.destroy()
      })
      await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
      tcpPort = (tcp.address() as net.AddressInfo).port
    })
    afterAll(() => tcp.close())

    it('TCP connect to localhost is allowed without --no-net', async () => {
      const before = tcpConnections
      const r = await perl([], 'tcp', String(tcpPort))
      expect(r.stdout).toBe('ok\n')
      await waitFor('the connection', () => (tcpConnections > before ? true : undefined))
    })

    it('--no-net denies TCP connect to a listening localhost server', async () => {
      const before = tcpConnections
      const r = await perl(['--no-net'], 'tcp', String(tcpPort))
      expect(r.stdout).toBe('EACCES\n')
      await controlConnection({ host: '127.0.0.1', port: tcpPort }, () => tcpConnections, before)
      expect(tcpConnections).toBe(before + 1)
    })

    it('--no-net denies UDP: nothing reaches a local UDP socket', async () => {
      const udp = dgram.createSocket('udp4')
      let received = 0
      udp.on('message', () => received++)
      await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r))
      try {
        const port = String(udp.address().port)
        expect((await perl(['--no-net'], 'udp', port)).stdout).toBe('EACCES\n')
        expect((await perl([], 'udp', port)).stdout).toBe('ok\n') // the control
        await waitFor('the datagram', () => (received > 0 ? true : undefined))
        // datagrams to one socket queue in the order sent: the control's is the only one
        expect(received).toBe(1)
      } finally {
        udp.close()
      }
    })

    it('--no-net leaves only unix stream/seqpacket sockets', async () => {
      for (const kind of ['inet6', 'netlink', 'unix_dgram'])
        expect((await perl(['--no-net'], 'socket', kind)).stdout, kind).toBe('EACCES\n')
      expect((await perl(['--no-net'], 'socketpair_dgram')).stdout).toBe('EACCES\n')
      for (const kind of ['unix_stream', 'unix_seqpacket'])
        expect((await perl(['--no-net'], 'socket', kind)).stdout, kind).toBe('ok\n')
      expect((await perl([], 'socket', 'netlink')).stdout).toBe('ok\n') // the control
    })

    it('--no-net refuses bind() and listen(): no squatting an abstract name or planting a socket file for host clients', async () => {
      const rw = tmp()
      const name = `dsh-squat-${process.pid}-${Date.now()}`
      expect((await perl(['--no-net', '--rw', rw], 'bind_abstract', name)).stdout).toBe('EACCES\n')
      expect((await perl(['--no-net', '--rw', rw], 'bind_path', path.join(rw, 's.sock'))).stdout).toBe('EACCES\n')
      expect((await perl(['--no-net', '--rw', rw], 'listen')).stdout).toBe('EACCES\n')
      expect(fs.readdirSync(rw)).toEqual([])
      // nobody holds the name: a host server can still take it
      const server = net.createServer()
      await new Promise<void>((r, reject) => server.once('error', reject).listen(`\0${name}`, r))
      server.close()
      // the control: without --no-net the same binds work
      expect((await perl(['--rw', rw], 'bind_path', path.join(rw, 's.sock'))).stdout).toBe('ok\n')
      expect((await perl([], 'bind_abstract', name)).stdout).toBe('ok\n')
    })

    it('io_uring is denied with and without --no-net (it would bypass both filters)', async () => {
      expect((await perl(['--no-net'], 'io_uring')).stdout).toBe('ENOSYS\n')
      expect((await perl([], 'io_uring')).stdout).toBe('ENOSYS\n')
      // the control: outside the launcher the same call reaches the kernel
      const bare = spawnSync('/usr/bin/perl', [netProbe, 'io_uring'], { encoding: 'utf8' })
      expect(bare.stdout).toBe('EFAULT\n')
    })

    it.skipIf(abi < 6)('an abstract unix socket outside is unreachable, with or without --no-net', async () => {
      const name = `dsh-landlock-${process.pid}-${Date.now()}`
      let connections = 0
      const server = net.createServer((s) => {
        connections++
        s.destroy()
      })
      await new Promise<void>((r) => server.listen(`\0${name}`, r))
      try {
        expect((await perl([], 'abstract', name)).stdout).toBe('EPERM\n') // scoping
        expect((await perl(['--no-net'], 'abstract', name)).stdout).toBe('EACCES\n') // seccomp
        await controlConnection({ path: `\0${name}` }, () => connections, 0)
        expect(connections).toBe(1)
      } finally {
        server.close()
      }
    })

    it('a pathname unix socket outside the rw roots (think /run/docker.sock)', async () => {
      const out = tmp()
      const sock = path.join(out, 'control.sock')
      let connections = 0
      const server = net.createServer((s) => {
        connections++
        s.destroy()
      })
      await new Promise<void>((r) => server.listen(sock, r))
      try {
        expect((await perl(['--no-net'], 'unix', sock)).stdout).toBe('EACCES\n')
        await controlConnection({ path: sock }, () => connections, 0)
        expect(connections).toBe(1)
        // Network on: only Landlock ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX) can refuse it.
        const on = await perl([], 'unix', sock)
        if (abi >= 9) expect(on.stdout).toBe('EACCES\n')
        else {
          expect(built.probe!.limits).toContain('pathname-unix-connect')
          expect(on.stdout).toBe('ok\n') // documented limit
        }
      } finally {
        server.close()
      }
    })

    it('a foreign-architecture (int 0x80) syscall is killed, with or without --no-net', async (ctx) => {
      const work = tmp()
      const src = path.join(work, 'int80.c')
      fs.writeFileSync(
        src,
        'int main(void) { long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); return r > 0 ? 0 : 1; }\n',
      )
      const cc = spawnSync('cc', ['-O0', '-o', path.join(work, 'int80'), src], { encoding: 'utf8' })
      if (process.arch !== 'x64' || cc.status !== 0) return ctx.skip('needs x86_64 and a C compiler')
      // the control runs outside the launcher: the kernel has a 32-bit entry
      if (spawnSync(path.join(work, 'int80')).status !== 0) return ctx.skip('kernel has no 32-bit syscall entry')
      for (const flags of [[], ['--no-net']]) {
        const r = await run([...BASE, '--ro', work, ...flags, '--', path.join(work, 'int80')])
        expect(r.code, flags.join(' ') || 'always').toBe(128 + os.constants.signals.SIGSYS)
      }
    })
  })

  describe('supervision: nothing outlives the call', () => {
    it('kills a setsid grandchild when the command returns', async () => {
      const rw = tmp()
      // a sleep argument of its own: the grandchild is found by it in /proc, whatever its pid namespace
      const token = `1.${String(process.pid).padStart(7, '0')}1`
      const r = await sh(['--rw', rw], `setsid sh -c 'sleep ${token}; touch ${rw}/late' & echo $!`)
      expect(r.code).toBe(0)
      const grandchild = Number(r.stdout.trim())
      expect(grandchild).toBeGreaterThan(0)
      expect(pidAlive(grandchild)).toBe(false)
      // gone, not slept on: left alive, the grandchild touches `late` before it ends
      expect(await noneLeftWith(token)).toBe(true)
      expect(fs.existsSync(path.join(rw, 'late'))).toBe(false)
    })

    it('kills a double-forked daemon and its children too', async () => {
      const rw = tmp()
      const r = await sh(['--rw', rw], `(sh -c 'sleep 30 & echo $! > ${rw}/inner; wait' &) ; sleep 0.2`)
      expect(r.code).toBe(0)
      const inner = readPid(path.join(rw, 'inner'))()
      expect(inner).toBeGreaterThan(0)
      expect(pidAlive(inner!)).toBe(false)
    })

    it('forwards SIGTERM to the command and exits 128+15', async () => {
      const rw = tmp()
      const launcher = startSh(['--rw', rw], `echo $$ > ${rw}/pid; exec sleep 30`)
      const cmd = await waitFor('the command pid', readPid(path.join(rw, 'pid')))
      const sent = Date.now()
      signal(launcher, 'SIGTERM')
      const r = await launcher.done
      expect(r.code).toBe(143)
      expect(Date.now() - sent).toBeLessThan(900) // it did not need the grace period
      expect(pidAlive(cmd)).toBe(false)
    })

    it('SIGKILLs a command that ignores the forwarded SIGTERM after the grace period', async () => {
      const rw = tmp()
      const launcher = startSh(['--rw', rw], `trap '' TERM; echo $$ > ${rw}/pid; sleep 30`)
      const cmd = await waitFor('the command pid', readPid(path.join(rw, 'pid')))
      const sent = Date.now()
      signal(launcher, 'SIGTERM')
      const r = await launcher.done
      expect(r.code).toBe(137)
      expect(Date.now() - sent).toBeGreaterThanOrEqual(900)
      expect(Date.now() - sent).toBeLessThan(3000)
      expect(pidAlive(cmd)).toBe(false)
    })

    it('forwards other signals (SIGUSR1) without ending the call', async () => {
      const rw = tmp()
      const launcher = startSh(
        ['--rw', rw],
        `trap 'echo got-usr1; exit 5' USR1; echo $$ > ${rw}/pid; while :; do sleep 0.05; done`,
      )
      await waitFor('the command pid', readPid(path.join(rw, 'pid')))
      signal(launcher, 'SIGUSR1')
      const r = await launcher.done
      expect(r.stdout).toBe('got-usr1\n')
      expect(r.code).toBe(5)
    })

    it('the command dies with a SIGKILLed launcher (PR_SET_PDEATHSIG)', async () => {
      const rw = tmp()
      const launcher = startSh(['--rw', rw], `echo $$ > ${rw}/pid; exec sleep 30`)
      const cmd = await waitFor('the command pid', readPid(path.join(rw, 'pid')))
      signal(launcher, 'SIGKILL')
      expect((await launcher.done).signal).toBe('SIGKILL')
      await waitFor('the command to die', () => (pidAlive(cmd) ? undefined : true))
    })

    it('cleans up when its own caller dies', async () => {
      const rw = tmp()
      const inner = [bin, ...BASE, '--rw', rw, '--', '/bin/sh', '-c', `'echo $$ > ${rw}/pid; exec sleep 30'`]
      const caller = spawnSync('/bin/sh', ['-c', `${inner.join(' ')} & echo $! > ${rw}/launcher; sleep 0.3`], {
        stdio: 'ignore',
      })
      expect(caller.status).toBe(0)
      const cmd = readPid(path.join(rw, 'pid'))()
      const launcher = readPid(path.join(rw, 'launcher'))()
      expect(cmd).toBeGreaterThan(0)
      expect(launcher).toBeGreaterThan(0)
      await waitFor('the command to die', () => (pidAlive(cmd!) ? undefined : true))
      await waitFor('the launcher to exit', () => (pidAlive(launcher!) ? undefined : true))
    })
  })
})

describe.skipIf(!(built.probe as { exec_notify?: boolean } | undefined)?.exec_notify)('landlock-run --exec-notify when the host goes away', () => {
  it('an exec the host was asked about and never answered is refused when its socket closes, not held until the timeout', async () => {
    const dir = tmp()
    const socket = path.join(dir, 's')
    const got: Buffer[] = []
    // a host that takes the first request and hangs up without an answer
    const server = net.createServer((peer) => peer.once('data', (chunk) => (got.push(chunk), peer.destroy())))
    await new Promise<void>((resolve) => server.listen(socket, resolve))
    try {
      const r = await run([...BASE, '--exec-notify', socket, '--', '/bin/sh', '-c', '/bin/true; echo "first $?"; /bin/true; echo "second $?"'], { timeoutMs: 20_000 })
      expect(r.stdout, r.stderr).toMatch(/^first 126$/m)
      expect(r.stdout).toMatch(/^second 126$/m)
      expect(got.length).toBe(1)
      // a held exec would have lasted until the 20 s kill: this one was answered
      expect(r.signal).toBeNull()
    } finally {
      server.close()
    }
  })
})
