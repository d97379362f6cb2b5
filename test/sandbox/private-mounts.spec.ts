// --private-mounts on the real launcher: the covers and binds made in a
// private copy of its own mount namespace while it holds CAP_SYS_ADMIN —
// on the host for a root caller (the Landlock backend's covers), and inside
// bwrap's user namespace (the bwrap backend's /dev and covers). Every test
// asserts what the command could not see or undo, and that the host's
// mount table and files are as before.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { bwrapArgs, DEFAULT_LIMITS, PROTECTED_NAMES, type ResolvedPolicy } from '@dsh/sandbox'
import { lacks } from '../backends.js'
import { tempDirs } from '../temp-dirs.js'

const bin = path.resolve(fileURLToPath(import.meta.url), '../../../native/landlock-run/landlock-run')
// By real path: the launcher refuses a rule on a symbolic link (/bin -> usr/bin where /usr is merged)
const BASE = [...[...new Set(['/usr', '/lib', '/lib64', '/bin', '/etc', '/proc'].filter((p) => fs.existsSync(p)).map((p) => fs.realpathSync(p)))].flatMap((p) => ['--ro', p]), '--rw', '/dev/null']
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p))

function probe(prefix: string[] = []): { private_mounts?: boolean } | undefined {
  const argv = [...prefix, bin, '--probe']
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' })
  return r.status === 0 ? JSON.parse(r.stdout) : undefined
}
const probed = process.platform === 'linux' ? probe() : undefined
const hostSkip = !probed ? 'the launcher does not run here' : !probed.private_mounts ? 'the launcher cannot mount here (no CAP_SYS_ADMIN: not root)' : undefined
if (hostSkip) console.warn(`skipping --private-mounts on the host: ${hostSkip}`)
const bwrapSkip = await lacks('bwrap', '--private-mounts inside bwrap')

interface Run { code: number | null; stdout: string; stderr: string }

function start(argv: string[]): Promise<Run> {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d))
  child.stderr.on('data', (d: Buffer) => (stderr += d))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

const temps = tempDirs()
const tmp = () => temps.make('dsh-private-mounts-')
afterEach(() => temps.removeAll())

/**
 * The launcher where another user can execute it: a checkout may sit in a
 * directory only root can enter (root's home, a `mktemp -d`), and the
 * unprivileged case runs the launcher as nobody.
 */
function reachableLauncher(): string {
  const dir = tmp()
  fs.chmodSync(dir, 0o755)
  const copy = path.join(dir, 'landlock-run')
  fs.copyFileSync(bin, copy)
  fs.chmodSync(copy, 0o755)
  return copy
}

/** A directory with a secret file, a secret directory and an allowed path inside it. */
function secrets() {
  const out = tmp()
  fs.mkdirSync(path.join(out, 'creds/public'), { recursive: true })
  fs.writeFileSync(path.join(out, 'creds/id_rsa'), 'SECRET-KEY')
  fs.writeFileSync(path.join(out, 'creds/public/ok'), 'public-part')
  fs.writeFileSync(path.join(out, 'token'), 'SECRET-TOKEN')
  return { out, creds: path.join(out, 'creds'), token: path.join(out, 'token'), allowed: path.join(out, 'creds/public') }
}

const mountTable = () => fs.readFileSync('/proc/self/mountinfo', 'utf8')

describe('--private-mounts: the command line', () => {
  const refusals: Array<[string, (rw: string) => string[]]> = [
    ['--mount-dev without --private-mounts', (rw) => ['--mount-dev', '--rw', rw]],
    ['--mount-proc without --private-mounts', (rw) => ['--mount-proc', '--rw', rw]],
    ['--private-mounts with --namespaces', (rw) => ['--namespaces', '--private-mounts', '--rw', rw]],
    ['a --mount-rw with --private-mounts', (rw) => ['--private-mounts', '--mount-rw', rw, '--rw', rw]],
    ['a --chdir with --private-mounts', (rw) => ['--private-mounts', '--chdir', rw, '--rw', rw]],
    ['--mount-tmp without --private-mounts', (rw) => ['--mount-tmp', '--rw', rw]],
    ['--mounts-in-place without --no-supervisor', (rw) => ['--private-mounts', '--mounts-in-place', '--rw', rw]],
  ]
  for (const [what, flags] of refusals) {
    it.skipIf(!probed)(`${what}: exit 125, one line on stderr, the command never ran`, async () => {
      const rw = tmp()
      const r = await start([bin, ...BASE, ...flags(rw), '--', '/bin/sh', '-c', `touch ${rw}/ran`])
      expect(r.code).toBe(125)
      expect(r.stderr).toMatch(/^landlock-run: .+\n$/)
      expect(fs.existsSync(path.join(rw, 'ran'))).toBe(false)
    })
  }

  it.skipIf(hostSkip || !SETPRIV)('without CAP_SYS_ADMIN it is refused (exit 125) and --probe says private_mounts false', async () => {
    const rw = tmp()
    const { token } = secrets()
    const noAdmin = [SETPRIV!, '--bounding-set=-sys_admin', '--inh-caps=-sys_admin', '--']
    const r = await start([...noAdmin, bin, ...BASE, '--ro', path.dirname(token), '--private-mounts', '--hide', token, '--rw', rw, '--', '/bin/sh', '-c', `cat ${token} > ${rw}/got`])
    expect(r.code).toBe(125)
    expect(r.stderr).toContain('needs CAP_SYS_ADMIN')
    expect(fs.existsSync(path.join(rw, 'got'))).toBe(false)
    expect(probe(noAdmin)?.private_mounts).toBe(false)
  })
})

describe.skipIf(hostSkip)('--private-mounts on the host (a root caller)', () => {
  it('covers a denied file and directory, shows an allowed path inside again read-only; the command cannot undo a cover, and the host sees none of it', async () => {
    const { out, creds, token, allowed } = secrets()
    const before = mountTable()
    const script = [
      `cat ${token}`, `cat ${creds}/id_rsa`, `ls -a ${creds}`, `cat /proc/self/root${token}`, `grep -r SECRET ${out}`,
      `echo allowed: $(cat ${allowed}/ok)`, `echo x > ${allowed}/ok && echo wrote`,
      `umount ${token}; umount -l ${creds}; cat ${token}; cat ${creds}/id_rsa`, `ln ${token} ${out}/hard && cat ${out}/hard`,
      'grep -E "^Cap(Eff|Bnd)" /proc/self/status', 'sleep 0.4',
    ].join('; ')
    const running = start([bin, ...BASE, '--ro', out, '--private-mounts', '--hide', token, '--hide', creds, '--mount-ro', allowed, '--', '/bin/sh', '-c', script])
    await new Promise((r) => setTimeout(r, 200))
    const during = mountTable()
    const r = await running
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain('SECRET')
    expect(r.stdout).not.toContain('id_rsa')
    expect(r.stdout).not.toContain('wrote')
    expect(r.stdout).toContain('allowed: public-part')
    expect(r.stdout).toContain('CapEff:\t0000000000000000')
    expect(r.stdout).toContain('CapBnd:\t0000000000000000')
    // nothing propagated to the host's mount namespace, before or after the command ended
    expect(during).not.toContain(out)
    expect(mountTable()).toBe(before)
    expect(fs.readFileSync(token, 'utf8')).toBe('SECRET-TOKEN')
    expect(fs.readFileSync(path.join(allowed, 'ok'), 'utf8')).toBe('public-part')
    expect(fs.existsSync(path.join(out, 'hard'))).toBe(false)
  })

  it('a --hide of a symbolic link is refused (exit 125): covering the link would leave what it names readable', async () => {
    const { out, token } = secrets()
    fs.symlinkSync(token, path.join(out, 'link'))
    const r = await start([bin, ...BASE, '--ro', out, '--private-mounts', '--hide', path.join(out, 'link'), '--', '/bin/cat', token])
    expect(r.code).toBe(125)
    expect(r.stdout).toBe('')
  })
})

describe.skipIf(bwrapSkip || hostSkip === 'the launcher does not run here')('--private-mounts --mount-proc --mount-dev inside bwrap', () => {
  const policy = (workspace: string, over: Partial<ResolvedPolicy> = {}): ResolvedPolicy => ({
    mode: 'read-only', workspace, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, ...over,
  })
  const DEV = ['fd', 'full', 'null', 'ptmx', 'pts', 'random', 'shm', 'stderr', 'stdin', 'stdout', 'tty', 'urandom', 'zero']
  const script = (token: string) => [
    'ls /dev | tr "\\n" " "; echo', `cat ${token}`, 'echo x > /dev/null && echo null-ok', 'head -c 4 /dev/urandom | wc -c',
    'grep -E "^Cap(Eff|Bnd)" /proc/self/status', `umount ${token}; cat ${token}`, 'mount -t tmpfs none /tmp && echo mounted',
    'echo procs: $(ls /proc | grep -c "^[0-9]")', 'for f in /proc/sys/kernel/hostname /proc/sysrq-trigger; do [ -e $f ] && { echo x > $f && echo "wrote $f"; }; done',
    'grep " /proc/sys " /proc/self/mountinfo | cut -d" " -f5,6', 'true',
  ].join('; ')

  for (const as of ['root', 'an unprivileged user'] as const) {
    it(`as ${as}: the launcher's /proc is the sandbox's, its /dev holds only the usual devices, the covers hold; no capability is left (the profile the bwrap backend uses)`, async () => {
      if (as !== 'root' && (!SETPRIV || process.getuid?.() !== 0)) return void console.warn('skipped: needs root and setpriv to run as another user')
      const { out, token } = secrets()
      fs.chmodSync(out, 0o755)
      fs.chmodSync(token, 0o644)
      const launcher = as === 'root' ? bin : reachableLauncher()
      const argv = bwrapArgs('/usr/bin/bwrap', launcher, ['/bin/sh', '-c', script(token)], policy(out, { readDeny: [token] }), undefined, 'launcher')
      expect(argv).not.toContain('--dev')
      expect(argv).not.toContain('--proc')
      const r = await start(as === 'root' ? argv : [SETPRIV!, '--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv])
      expect(r.stderr).not.toContain('landlock-run:')
      expect(r.code).toBe(0)
      expect(r.stdout.split('\n')[0].trim().split(' ')).toEqual(DEV)
      expect(r.stdout).not.toContain('SECRET')
      expect(r.stdout).not.toContain('mounted')
      expect(r.stdout).toContain('null-ok')
      expect(r.stdout).toMatch(/^4$/m)
      expect(r.stdout).toContain('CapEff:\t0000000000000000')
      expect(r.stdout).toContain('CapBnd:\t0000000000000000')
      // a fresh proc of bwrap's PID namespace (its init, the shell and its pipeline's few), not the host's; the kernel's knobs read-only beneath it
      expect(Number(/^procs: (\d+)$/m.exec(r.stdout)?.[1])).toBeLessThan(10)
      expect(r.stdout).not.toContain('wrote')
      expect(r.stdout).toMatch(/\/proc\/sys ro,/)
      expect(fs.readFileSync(token, 'utf8')).toBe('SECRET-TOKEN')
    })
  }

  it('bwrap\'s own mounts (the fallback profile) hide the same and give the same /proc and /dev', async () => {
    const { out, token } = secrets()
    const r = await start(bwrapArgs('/usr/bin/bwrap', bin, ['/bin/sh', '-c', script(token)], policy(out, { readDeny: [token] }), undefined, 'bwrap'))
    expect(r.code).toBe(0)
    // bwrap's --dev adds /dev/core (a link to /proc/kcore, which the read-only /proc refuses)
    expect(r.stdout.split('\n')[0].trim().split(' ').filter((n) => n !== 'core')).toEqual(DEV)
    expect(r.stdout).not.toContain('SECRET')
    expect(r.stdout).toContain('CapBnd:\t0000000000000000')
    expect(Number(/^procs: (\d+)$/m.exec(r.stdout)?.[1])).toBeLessThan(10)
    expect(r.stdout).not.toContain('wrote')
  })

  it('the launcher\'s private /tmp: only the workspace shows there, read-only; neither /tmp nor the working directory\'s ".." reaches the host\'s /tmp; a denied path in the workspace stays covered; the host\'s files and mount table are as before', async () => {
    const { out, token } = secrets()
    const ws = path.join(out, 'ws')
    fs.mkdirSync(ws)
    fs.writeFileSync(path.join(ws, 'file'), 'in-workspace')
    fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV')
    const p = policy(ws, { readDeny: [token, path.join(ws, '.env')] })
    const argv = bwrapArgs('/usr/bin/bwrap', bin, ['/bin/sh', '-c', [
      'pwd', 'cat file', 'cat .env', `cat ${token}`, 'ls -a .. | tr "\n" " "; echo', 'ls -a /tmp | tr "\n" " "; echo', `ls ${out} | tr "\n" " "; echo`,
      'echo x > file && echo wrote-ws', 'echo x > new && echo made-in-ws', 'echo x > /tmp/scratch && echo tmp-ok', `echo x > ${out}/planted && echo planted`, 'true',
    ].join('; ')], p, undefined, 'launcher')
    expect(argv.slice(0, argv.indexOf('--'))).not.toContain('--tmpfs')
    expect(argv).toContain('--mount-tmp')
    const before = mountTable()
    const r = await start(argv)
    expect(r.stderr).not.toContain('landlock-run:')
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe(ws)
    expect(r.stdout).toContain('in-workspace')
    expect(r.stdout).not.toContain('SECRET')
    // the private /tmp holds the mount points down to the workspace and nothing of the host's
    expect(r.stdout).toContain(`. .. ${path.basename(out)} `)
    expect(r.stdout).not.toContain('wrote-ws')
    expect(r.stdout).not.toContain('made-in-ws')
    // the workspace's parent is a mount point in the private /tmp: writable there, as under bwrap's own /tmp, and not on the host
    expect(r.stdout).toContain('planted')
    expect(r.stdout).toContain('tmp-ok')
    expect(fs.readFileSync(path.join(ws, 'file'), 'utf8')).toBe('in-workspace')
    expect(fs.existsSync(path.join(ws, 'new'))).toBe(false)
    expect(fs.existsSync(path.join(out, 'planted'))).toBe(false)
    expect(fs.existsSync('/tmp/scratch') && fs.readFileSync('/tmp/scratch', 'utf8') === 'x\n').toBe(false)
    expect(mountTable()).toBe(before)
  })

  it('--mounts-in-place is refused (exit 125, the command never runs) in a mount namespace not made for the command: on the host, and as PID 2 under `unshare --pid --fork` in the host\'s own', async () => {
    const { out, token } = secrets()
    const rw = tmp()
    const args = ['--no-supervisor', '--private-mounts', '--mounts-in-place', '--hide', token, ...BASE, '--ro', out, '--rw', rw, '--', '/bin/sh', '-c', `touch ${rw}/ran`]
    const before = mountTable()
    const onHost = await start([bin, ...args])
    expect(onHost.code).toBe(125)
    const unshare = ['/usr/bin/unshare', '/bin/unshare'].find((p) => fs.existsSync(p))
    if (unshare && process.getuid?.() === 0) {
      // sh is PID 1 of the new PID namespace and the launcher its child, PID 2, in the host's mount namespace
      const nested = await start([unshare, '--pid', '--fork', '/bin/sh', '-c', `"$0" "$@"; echo "launcher exit $?"`, bin, ...args])
      expect(nested.stdout).toContain('launcher exit 125')
      expect(nested.stderr).toContain('not one made for this command')
    } else console.warn('skipped the unshare --pid case: needs root and unshare')
    expect(fs.existsSync(path.join(rw, 'ran'))).toBe(false)
    expect(fs.readFileSync(token, 'utf8')).toBe('SECRET-TOKEN')
    expect(mountTable()).toBe(before)
  })

  it('without --cap-add the launcher is refused its mounts (exit 125) and the command never runs', async () => {
    const { out, token } = secrets()
    const argv = bwrapArgs('/usr/bin/bwrap', bin, ['/bin/cat', token], policy(out, { readDeny: [token] }), undefined, 'launcher').filter((a, i, all) => a !== '--cap-add' && all[i - 1] !== '--cap-add')
    const r = await start(argv)
    expect(r.code).toBe(125)
    expect(r.stderr).toContain('needs CAP_SYS_ADMIN')
    expect(r.stdout).toBe('')
  })
})
