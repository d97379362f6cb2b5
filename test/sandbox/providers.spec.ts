// The argv each Linux backend builds for a policy, and what it reports it
// cannot enforce. The real runs are in test/adversarial.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bwrapArgs, bwrapUnenforced, landlockArgs, landlockCovers, landlockNsArgs, landlockUnenforced, type ResolvedPolicy, DEFAULT_LIMITS, PROTECTED_NAMES, CORE_PROTECTED, launcherLimitArgs, limitsUnenforced } from '@dsh/sandbox'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const tmp = () => temps.make('dsh-providers-')
afterEach(() => temps.removeAll())

const rw = (ws: string, over: Partial<ResolvedPolicy> = {}): ResolvedPolicy => ({ mode: 'workspace-write', workspace: ws, writableRoots: [ws], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, ...over })
const ro = (ws: string, over: Partial<ResolvedPolicy> = {}): ResolvedPolicy => ({ mode: 'read-only', workspace: ws, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, ...over })

/** The launcher's `--inode` for a path: what the host resolved it to, checked where the launcher opens it by name. */
const inode = (p: string) => {
  const st = fs.lstatSync(p, { bigint: true })
  return ['--inode', p, `${st.dev}:${st.ino}`]
}

/** The flag pairs/triples of an argv, for order checks. */
const at = (argv: string[], ...seq: string[]) => argv.findIndex((_, i) => seq.every((s, j) => argv[i + j] === s))

// the launcher starts the command with exactly the policy's environment
const envArgs = (ws: string) => ['--env', 'PATH=/usr/local/bin:/usr/bin:/bin', '--env', `HOME=${ws}`, '--env', 'LANG=C.UTF-8', ...launcherLimitArgs(DEFAULT_LIMITS)]
// RLIMIT_NPROC does not bind root: the process count is reported, on every Linux backend
const nproc = limitsUnenforced()

describe('bwrap profile', () => {
  it('read-only: namespaces, caps dropped, private /tmp before the workspace, the workspace bound read-only, launcher with --no-net', () => {
    const ws = tmp()
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/sh', '-c', 'x'], ro(ws))
    expect(argv[0]).toBe('/usr/bin/bwrap')
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--die-with-parent']) expect(argv).toContain(flag)
    expect(argv).not.toContain('--new-session') // the launcher inside leaves the terminal
    expect(at(argv, '--cap-drop', 'ALL')).toBeGreaterThan(0)
    expect(at(argv, '--ro-bind', '/', '/')).toBeGreaterThan(0)
    expect(at(argv, '--tmpfs', '/tmp')).toBeLessThan(at(argv, '--ro-bind', ws, ws))
    expect(at(argv, '--bind', ws, ws)).toBe(-1)
    // a launcher outside /tmp, /proc and /dev is shown by the read-only root; one under /tmp stays reachable: bound after the private /tmp
    expect(at(argv, '--ro-bind', '/l/landlock-run', '/l/landlock-run')).toBe(-1)
    const underTmp = bwrapArgs('/usr/bin/bwrap', '/tmp/l/landlock-run', ['/bin/true'], ro(ws))
    expect(at(underTmp, '--ro-bind', '/tmp/l/landlock-run', '/tmp/l/landlock-run')).toBeGreaterThan(at(underTmp, '--tmpfs', '/tmp'))
    // a read-only workspace outside them is not bound again either
    expect(bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], ro('/srv/ws')).filter((a) => a === '/srv/ws')).toEqual(['/srv/ws'])
    const inner = argv.slice(argv.indexOf('--') + 1)
    expect(inner).toEqual(['/l/landlock-run', '--no-supervisor', ...envArgs(ws), '--ro', '/', '--rw', '/tmp', '--rw', '/dev', '--no-net', '--', '/bin/sh', '-c', 'x'])
    expect(bwrapUnenforced(ro(ws))).toEqual([...nproc])
  })

  it('workspace-write: every root bound read-write after /tmp, existing protected entries bound read-only after it', () => {
    const [ws, extra] = [tmp(), tmp()]
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(path.join(ws, '.mcp.json'), '{}')
    const policy = rw(ws, { writableRoots: [ws, extra] })
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], policy)
    expect(at(argv, '--tmpfs', '/tmp')).toBeLessThan(at(argv, '--bind', ws, ws))
    expect(at(argv, '--bind', extra, extra)).toBeGreaterThan(0)
    for (const p of ['.git', '.mcp.json'].map((n) => path.join(ws, n))) expect(at(argv, '--ro-bind', p, p)).toBeGreaterThan(at(argv, '--bind', ws, ws))
    expect(argv.filter((a) => a.includes('.claude'))).toEqual([]) // absent: nothing to bind
    expect(at(argv, '--chdir', ws)).toBeGreaterThan(0)
    expect(argv.slice(argv.indexOf('--') + 1)).toEqual(['/l/landlock-run', '--no-supervisor', ...envArgs(ws), '--ro', '/', '--rw', '/tmp', '--rw', '/dev', ...inode(ws), ...inode(extra), '--rw', ws, '--rw', extra, '--no-net', '--', '/bin/true'])
    expect(bwrapUnenforced(policy)).toEqual(['absent-protected-paths', ...nproc])
  })

  it('every protected entry present and no symlink: full enforcement with the network off', () => {
    const ws = tmp()
    for (const n of ['.git', '.dsh', '.claude', '.codex']) fs.mkdirSync(path.join(ws, n))
    fs.writeFileSync(path.join(ws, '.mcp.json'), '{}')
    expect(bwrapUnenforced(rw(ws, { protectedPaths: CORE_PROTECTED }))).toEqual([...nproc])
    fs.rmSync(path.join(ws, '.codex'), { recursive: true })
    fs.symlinkSync(tmp(), path.join(ws, '.codex'))
    expect(bwrapUnenforced(rw(ws, { protectedPaths: CORE_PROTECTED }))).toEqual(['protected-symlinks', ...nproc])
  })

  it('network on: no network namespace, no --no-net, and host unix sockets reported', () => {
    const ws = tmp()
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], ro(ws, { network: 'on' }))
    expect(argv).not.toContain('--unshare-net')
    expect(argv).not.toContain('--no-net')
    expect(bwrapUnenforced(ro(ws, { network: 'on' }))).toEqual(['pathname-unix-sockets', ...nproc])
  })
})

describe('landlock-ns profile (the launcher\'s own namespaces)', () => {
  it('read-only: --namespaces, the workspace bound read-only and the working directory, the inner rules as under bwrap, --no-net', () => {
    const ws = tmp()
    expect(landlockNsArgs('/l/landlock-run', ['/bin/sh', '-c', 'x'], ro(ws))).toEqual([
      '/l/landlock-run', '--namespaces', '--chdir', ws, ...envArgs(ws), ...inode(ws), '--mount-ro', ws,
      '--ro', '/', '--rw', '/tmp', '--rw', '/dev', '--no-net', '--', '/bin/sh', '-c', 'x',
    ])
  })

  it('workspace-write: every root bound read-write, then its existing protected entries read-only over it; the same gaps as bwrap', () => {
    const [ws, extra] = [tmp(), tmp()]
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(path.join(ws, '.mcp.json'), '{}')
    const policy = rw(ws, { writableRoots: [ws, extra], network: 'on' })
    const argv = landlockNsArgs('/l/landlock-run', ['/bin/true'], policy)
    const binds = argv.slice(0, argv.indexOf('--ro')).filter((a, i, all) => all[i - 1]?.startsWith('--mount-'))
    expect(binds).toEqual([ws, extra, path.join(ws, '.git'), path.join(ws, '.mcp.json')])
    // each source, rule and the working directory checked against what was resolved here
    expect(argv.slice(argv.indexOf('--inode'), argv.indexOf('--mount-rw'))).toEqual([...inode(ws), ...inode(extra), ...inode(path.join(ws, '.git')), ...inode(path.join(ws, '.mcp.json'))])
    expect(argv[argv.lastIndexOf(path.join(ws, '.git')) - 1]).toBe('--mount-ro')
    expect(argv.slice(argv.indexOf('--ro'))).toEqual(['--ro', '/', '--rw', '/tmp', '--rw', '/dev', '--rw', ws, '--rw', extra, '--', '/bin/true'])
    expect(bwrapUnenforced(policy)).toEqual(['absent-protected-paths', 'pathname-unix-sockets', ...nproc])
  })
})

describe('bwrap profile with the launcher\'s mounts', () => {
  it('bwrap leaves /dev and the covers to the launcher, which gets CAP_SYS_ADMIN and CAP_SETPCAP in bwrap\'s user namespace only', () => {
    const [ws, out] = [tmp(), tmp()]
    fs.mkdirSync(path.join(out, 'creds/public'), { recursive: true })
    fs.writeFileSync(path.join(out, 'token'), 'x')
    const policy = ro(ws, { readDeny: [path.join(out, 'creds'), path.join(out, 'token')], readAllow: [path.join(out, 'creds/public')] })
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], policy, undefined, 'launcher')
    const outer = argv.slice(0, argv.indexOf('--'))
    expect(outer).not.toContain('--dev')
    expect(outer).not.toContain('--proc')
    expect(outer.filter((a) => a.startsWith(out))).toEqual([])
    expect(at(outer, '--cap-drop', 'ALL')).toBeLessThan(at(outer, '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP'))
    expect(argv.slice(argv.indexOf('--') + 1, argv.indexOf('--env'))).toEqual(['/l/landlock-run', '--no-supervisor', '--private-mounts', '--mounts-in-place', '--mount-proc', '--mount-dev',
      '--hide', path.join(out, 'creds'), '--hide', path.join(out, 'token'), '--mount-ro', path.join(out, 'creds/public')])
    // bwrap's own mounts: the same covers, made by bwrap
    const classic = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], policy, undefined, 'bwrap')
    expect(classic).toContain('--dev')
    expect(classic).not.toContain('--cap-add')
    expect(at(classic, '--ro-bind', '/dev/null', path.join(out, 'token'))).toBeGreaterThan(0)
  })

  it('read-only, the launcher makes the private /tmp too (bwrap binds only the root); writable roots, a bridged proxy socket or a path shown again under /tmp outside the workspace keep bwrap\'s /tmp', () => {
    const ws = tmp()
    const argv = bwrapArgs('/usr/bin/bwrap', '/tmp/l/landlock-run', ['/bin/true'], ro(ws), undefined, 'launcher')
    const outer = argv.slice(0, argv.indexOf('--'))
    expect(outer.filter((a) => a.startsWith('--') && a.includes('bind') || a === '--tmpfs')).toEqual(['--ro-bind'])
    expect(at(outer, '--chdir', ws)).toBeGreaterThan(0)
    const inner = argv.slice(argv.indexOf('--') + 1)
    expect(at(inner, '--mount-tmp', '--mount-ro', ws)).toBeGreaterThan(at(inner, '--mounts-in-place'))
    const proxied = { ...ro(ws), network: { allow: ['example.com'], deny: [] }, proxy: { port: 1080, socket: '/run/dsh/proxy.sock', credential: { username: 'u', password: 'p' } } } as unknown as ResolvedPolicy
    const kept = [
      rw(ws, { writableRoots: [ws] }),
      proxied,
      ro(ws, { readDeny: ['/tmp/other'], readAllow: ['/tmp/other/public'] }),
    ]
    for (const policy of kept) {
      const mounts = { hide: [], reveal: [...policy.readAllow] }
      const args = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], policy, mounts, 'launcher')
      expect(at(args, '--tmpfs', '/tmp')).toBeGreaterThan(0)
      expect(args).not.toContain('--mount-tmp')
      expect(args).toContain('--mounts-in-place')
    }
  })

  it('a workspace or writable root under /dev or /proc keeps bwrap\'s mounts: the launcher\'s own would cover it', () => {
    for (const policy of [ro('/dev/shm/ws'), rw('/srv/ws', { writableRoots: ['/srv/ws', '/proc/x'] })]) {
      const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], policy, undefined, 'launcher')
      expect(argv).toContain('--dev')
      expect(argv).toContain('--proc')
      expect(argv).not.toContain('--cap-add')
      expect(argv).not.toContain('--private-mounts')
    }
  })
})

describe('landlock-ns read policy', () => {
  it('each existing denied path --hide after every bind, an allowed one inside shown again after, a missing one skipped; hidden says which', () => {
    const [ws, out] = [tmp(), tmp()]
    fs.mkdirSync(path.join(out, 'creds/public'), { recursive: true })
    fs.writeFileSync(path.join(out, 'token'), 'x')
    fs.mkdirSync(path.join(ws, '.git'))
    const policy = rw(ws, { readDeny: [path.join(out, 'creds'), path.join(out, 'token'), path.join(out, 'absent'), path.join(ws, '.env')], readAllow: [path.join(out, 'creds/public')] })
    const argv = landlockNsArgs('/l/landlock-run', ['/bin/true'], policy)
    const mounts = argv.slice(0, argv.indexOf('--ro')).flatMap((a, i, all) => (a.startsWith('--mount-') || a === '--hide' ? [`${a} ${all[i + 1]}`] : []))
    expect(mounts).toEqual([`--mount-rw ${ws}`, `--mount-ro ${path.join(ws, '.git')}`, `--hide ${path.join(out, 'creds')}`, `--hide ${path.join(out, 'token')}`, `--mount-ro ${path.join(out, 'creds/public')}`])
  })
})

describe('landlock rules', () => {
  const hostRules = ['--ro', '/usr', '--ro', '/etc', '--ro', '/proc', '--rw', '/dev/null']

  it('read-only: the host rules plus the workspace read-only, --no-net', () => {
    expect(landlockArgs(ro('/tmp/ws'), hostRules)).toEqual([...envArgs('/tmp/ws'), ...hostRules, '--ro', '/tmp/ws', '--no-net'])
  })

  it('workspace-write: every root --rw; network on drops --no-net', () => {
    expect(landlockArgs(rw('/tmp/ws', { writableRoots: ['/tmp/ws', '/tmp/b'], network: 'on' }), hostRules))
      .toEqual([...envArgs('/tmp/ws'), ...hostRules, '--rw', '/tmp/ws', '--rw', '/tmp/b'])
  })

  it('a caller that can mount: the denied paths covered (--private-mounts --hide), not carved; one inside the workspace is covered too', () => {
    const [ws, out] = [tmp(), tmp()]
    fs.mkdirSync(path.join(out, 'creds/public'), { recursive: true })
    fs.writeFileSync(path.join(out, 'token'), 'x')
    fs.writeFileSync(path.join(ws, '.env'), 'x')
    const policy = ro(ws, { readDeny: [path.join(out, 'creds'), path.join(out, 'token'), path.join(ws, '.env')], readAllow: [path.join(out, 'creds/public')] })
    const covers = landlockCovers(policy, ['--ro', out, '--rw', '/dev/null'])
    expect(covers.rules).toEqual(['--ro', out, '--rw', '/dev/null'])
    expect(covers.hidden).toEqual([path.join(out, 'creds'), path.join(out, 'token'), path.join(ws, '.env')])
    expect(landlockArgs(policy, [], covers).slice(0, 8)).toEqual(['--private-mounts', '--hide', path.join(out, 'creds'), '--hide', path.join(out, 'token'), '--hide', path.join(ws, '.env'), '--mount-ro'])
  })

  it('reports what Landlock cannot enforce, by mode, network and ABI', () => {
    const abi7 = { abi: 7, limits: [] }
    expect(landlockUnenforced(ro('/w'), abi7)).toEqual(['metadata', 'launcher-sigkill', 'host-processes', ...nproc])
    expect(landlockUnenforced(rw('/w'), abi7)).toEqual(['metadata', 'launcher-sigkill', 'host-processes', 'protected-paths', ...nproc])
    expect(landlockUnenforced(ro('/w', { network: 'on' }), abi7)).toEqual(['metadata', 'launcher-sigkill', 'host-processes', 'pathname-unix-sockets', ...nproc])
    expect(landlockUnenforced(ro('/w', { network: 'on' }), { abi: 9, limits: [] })).toEqual(['metadata', 'launcher-sigkill', 'host-processes', ...nproc])
    expect(landlockUnenforced(ro('/w'), { abi: 5, limits: [] })).toEqual(['metadata', 'launcher-sigkill', 'host-processes', 'signals-outside', ...nproc])
  })
})

describe('nested protected entries: every ancestor below the root a mount point of its own', () => {
  const nested = () => {
    const ws = tmp()
    for (const d of ['sub/.git', 'vendor/lib/.git', 'pkg/app']) fs.mkdirSync(path.join(ws, d), { recursive: true })
    fs.writeFileSync(path.join(ws, 'pkg/app/.envrc'), '')
    return ws
  }

  it('bwrap: each directory between the root and a nested entry bound onto itself, shallowest first, before the read-only binds', () => {
    const ws = nested()
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], rw(ws))
    const binds = argv.filter((a, i, all) => all[i - 1] === '--bind' && all[i + 1] === a)
    expect(binds[0]).toBe(ws)
    expect([...binds].sort()).toEqual([ws, ...['sub', 'vendor', 'pkg', 'vendor/lib', 'pkg/app'].map((d) => path.join(ws, d))].sort())
    // a parent before its child: the child's bind would be covered otherwise
    expect(binds.indexOf(path.join(ws, 'vendor'))).toBeLessThan(binds.indexOf(path.join(ws, 'vendor/lib')))
    expect(binds.indexOf(path.join(ws, 'pkg'))).toBeLessThan(binds.indexOf(path.join(ws, 'pkg/app')))
    const firstRo = at(argv, '--ro-bind', path.join(ws, 'sub/.git'))
    for (const d of binds) expect(at(argv, '--bind', d, d)).toBeLessThan(firstRo)
    expect(at(argv, '--ro-bind', path.join(ws, 'pkg/app/.envrc'), path.join(ws, 'pkg/app/.envrc'))).toBeGreaterThan(0)
    // no nested entry, no extra bind: a workspace with only top-level entries costs bwrap nothing more
    const flat = tmp()
    fs.mkdirSync(path.join(flat, '.git'))
    fs.mkdirSync(path.join(flat, 'src/deep/er'), { recursive: true })
    expect(bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], rw(flat)).filter((a) => a === '--bind')).toHaveLength(1)
  })

  it('landlock-ns: the same ancestors as --mount-rw, each with its --inode, before the --mount-ro of the entries', () => {
    const ws = nested()
    const argv = landlockNsArgs('/l/landlock-run', ['/bin/true'], rw(ws))
    const binds = argv.filter((a, i, all) => all[i - 1] === '--mount-rw')
    expect([...binds].sort()).toEqual([ws, ...['sub', 'vendor', 'pkg', 'vendor/lib', 'pkg/app'].map((d) => path.join(ws, d))].sort())
    expect(binds.indexOf(path.join(ws, 'vendor'))).toBeLessThan(binds.indexOf(path.join(ws, 'vendor/lib')))
    for (const d of binds) expect(at(argv, ...inode(d))).toBeGreaterThan(0)
    expect(at(argv, '--mount-rw', path.join(ws, 'pkg/app'))).toBeLessThan(at(argv, '--mount-ro', path.join(ws, 'sub/.git')))
  })

  it('under git: commit, the top-level .git is an ancestor of .git/hooks; a directory inside a read-only entry or a link is never bound', () => {
    const ws = tmp()
    fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true })
    fs.mkdirSync(path.join(ws, 'real/.git/hooks'), { recursive: true })
    fs.symlinkSync(path.join(ws, 'real'), path.join(ws, 'link'))
    const commit = rw(ws, { protectedPaths: [...PROTECTED_NAMES.filter((n) => n !== '.git'), '.git/hooks', '.git/config'] })
    const argv = bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], commit)
    const binds = argv.filter((a, i, all) => all[i - 1] === '--bind' && all[i + 1] === a)
    // real/.git/hooks is reached through real and real/.git; nothing through the link
    expect(binds).toEqual([ws, path.join(ws, '.git'), path.join(ws, 'real'), path.join(ws, 'real/.git')])
    // with .git read-only as a whole, nothing inside it is bound again
    expect(bwrapArgs('/usr/bin/bwrap', '/l/landlock-run', ['/bin/true'], rw(ws)).filter((a, i, all) => all[i - 1] === '--bind' && all[i + 1] === a)).toEqual([ws, path.join(ws, 'real')])
  })
})
