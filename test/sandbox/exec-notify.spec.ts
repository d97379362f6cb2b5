// The sandbox's side of exec rules (DESIGN §16.6), on the real launcher and
// each backend here: a restriction's `exec` check sees every execve/execveat
// of the confined command before it happens, with the argv as the program
// gets it and the program's real path (a symlink and an fd exec are known by
// what they run), and what it refuses fails with EACCES and never runs. What
// cannot be checked is said: a backend that cannot stop execs, or a confine()
// without a call to record for, puts `exec-rules` in `unenforced`.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { SandboxService, startProcess, sandboxEnv, type ExecRequest, type LocalBackend, type ProviderConfined, type SandboxProvider } from '@dsh/sandbox'
import type { Session } from '@dsh/kernel'
import { lacks } from '../backends.js'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const contexts: Context[] = []
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.stop()
  temps.removeAll()
})

const BACKENDS: LocalBackend[] = ['bwrap', 'landlock-ns', 'landlock']
const missing = Object.fromEntries(await Promise.all(BACKENDS.map(async (name) => [name, await lacks(name, `exec notification on ${name}`)] as const)))

/** A call to confine for: the check reads nothing of the session. */
const call = { session: {} as Session, callId: 'call-1' }

async function service(backends: LocalBackend[], ws: string, refuse: (r: ExecRequest) => boolean, programs?: string[]) {
  const ctx = new Context()
  contexts.push(ctx)
  ctx.plugin(SandboxService, { backends, workspace: ws, mode: 'workspace-write' })
  await ctx.start()
  const sandbox = ctx.get('sandbox') as SandboxService
  const seen: ExecRequest[] = []
  sandbox.restrict(() => ({ exec: { ...(programs ? { programs } : {}), check: (request) => (seen.push(request), refuse(request) ? { allow: false, reason: 'refused by the test' } : { allow: true }) } }))
  return { sandbox, seen }
}

async function run(sandbox: SandboxService, ws: string, script: string) {
  const confined = await sandbox.confine(['/bin/sh', '-c', script], { mode: 'workspace-write', workspace: ws }, call)
  try {
    const proc = startProcess({ argv: confined.argv, cwd: ws, env: { ...sandboxEnv(ws), ...confined.spawnEnv }, timeoutMs: 30_000, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250 })
    const out = await proc.done
    return { confined, code: out.exitCode, stdout: out.stdout.text(), stderr: out.stderr.text() }
  } finally {
    confined.cleanup()
  }
}

/** Until the process is asleep in the kernel function `name` (bounded). */
async function waitForWchan(pid: number, name: string) {
  for (let i = 0; i < 500; i++) {
    if (fs.readFileSync(`/proc/${pid}/wchan`, 'utf8') === name) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`process ${pid} never slept in ${name}`)
}

const isRm = (r: ExecRequest) => path.basename(r.realPath) === 'rm'

/** Runs argv[1:] with process_vm_readv refused (EPERM) for it and everything it starts. */
const NO_VM_READ = `import ctypes, os, platform, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {'x86_64': 310, 'aarch64': 270}[platform.machine()]
insn = lambda code, k, jt=0, jf=0: struct.pack('HBBI', code, jt, jf, k)
prog = insn(0x20, 0) + insn(0x15, nr, 0, 1) + insn(0x06, 0x00050000 | 1) + insn(0x06, 0x7fff0000)
buf = ctypes.create_string_buffer(prog, len(prog))
class Fprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
fprog = Fprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(fprog)):
    sys.exit('seccomp: errno %d' % ctypes.get_errno())
os.execvp(sys.argv[1], sys.argv[1:])
`


/**
 * An execve of /bin/echo with 201 arguments whose memory is laid out at page edges: the path and
 * the last argument end right before an unreadable page; the pointer table either ends there too
 * (`aligned`) or starts 4 bytes before a page boundary (`misaligned`).
 */
const LAYOUT = `import ctypes, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.execve.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
P = mmap.PAGESIZE
def region(pages):
    # \`pages\` readable pages, then one that is not mapped readable
    at = libc.mmap(None, (pages + 1) * P, 3, 0x22, -1, 0)
    libc.mprotect(at + pages * P, P, 0)
    return at
strings = region(1)
args = [b'/bin/echo'] + [b'a%d' % i for i in range(200)] + [b'last']
where, cursor = [], strings
for a in args[:-1]:
    ctypes.memmove(cursor, a + b'\\0', len(a) + 1)
    where.append(cursor)
    cursor += len(a) + 1
# the last argument and the path end right before the unreadable page
last = strings + P - 5
ctypes.memmove(last, b'last\\0', 5)
where.append(last)
path = strings + P - 5 - 10
ctypes.memmove(path, b'/bin/echo\\0', 10)
n = len(where) + 1
if sys.argv[1] == 'aligned':
    # the pointer array's NULL is the last word before the unreadable page
    table = region(1) + P - n * 8
else:
    # misaligned, its first pointer across two readable pages
    table = region(2) + P - 4
for i, w in enumerate(where + [0]):
    ctypes.memmove(table + i * 8, ctypes.byref(ctypes.c_uint64(w)), 8)
envp = (ctypes.c_void_p * 1)(None)
libc.execve(path, table, envp)
print('execve failed', ctypes.get_errno())
`


for (const backend of BACKENDS) {
  describe.skipIf(missing[backend])(`exec notification (${backend})`, () => {
    it('every exec is seen with its argv and real path; a refused one fails with EACCES and never runs', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'f'), 'keep')
      fs.symlinkSync('/bin/rm', path.join(ws, 'myrm'))
      const { sandbox, seen } = await service([backend], ws, isRm)
      const r = await run(sandbox, ws, './myrm f; echo "link $?"; python3 -c \'import os; fd = os.open("/bin/rm", os.O_RDONLY); os.execve(fd, ["x", "f"], {})\'; echo "fd $?"; /bin/echo "a  b" c')
      expect(r.confined.unenforced).not.toContain('exec-rules')
      expect(fs.existsSync(path.join(ws, 'f')), r.stderr).toBe(true)
      expect(r.stdout).toMatch(/^link 126$/m)
      expect(r.stdout).toMatch(/^fd 1$/m)
      expect(r.stdout).toContain('a  b c')
      // the symlink by what it runs, the fd exec (execveat AT_EMPTY_PATH) too, argv as given
      expect(seen).toContainEqual(expect.objectContaining({ path: './myrm', realPath: expect.stringMatching(/\/rm$/), argv: ['./myrm', 'f'] }))
      expect(seen).toContainEqual(expect.objectContaining({ path: '', realPath: expect.stringMatching(/\/rm$/), argv: ['x', 'f'] }))
      expect(seen).toContainEqual(expect.objectContaining({ realPath: expect.stringMatching(/\/echo$/), argv: ['/bin/echo', 'a  b', 'c'], truncated: false }))
      // the launcher's own exec of the command was decided as its text: not asked again
      expect(seen.some((s) => s.argv[0] === '/bin/sh' && s.argv[1] === '-c')).toBe(false)
    }, 60_000)

    it('a program reached through a link procfs answers by who asks (/proc/self/fd/N, /dev/fd/N, a symlink to one, /proc/PID/fd/N, /proc/self/root/…, ./N in /proc/self/fd) is refused, even when its name is not listed; the file survives', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'f'), 'keep')
      // Why listed names: the launcher lets an exec none of whose names is `rm` go on by itself, and argv[0] is the caller's to choose
      const { sandbox, seen } = await service([backend], ws, isRm, ['rm'])
      const exec = (p: string, arg = 'f') => `python3 -c 'import os, sys; os.execv(sys.argv[1], ["x", sys.argv[2]])' ${p} ${arg}; echo "${p} $?"`
      const r = await run(sandbox, ws, ['exec 3</bin/rm', 'ln -s /proc/self/fd/3 l', ...['/proc/self/fd/3', '/dev/fd/3', './l', '/proc/$$/fd/3', '/proc/self/root/bin/rm', '/proc/thread-self/fd/3'].map((p) => exec(p)), `(cd /proc/self/fd && ${exec('./3', `${ws}/f`)})`, '/bin/echo after'].join('; '))
      expect(fs.existsSync(path.join(ws, 'f')), r.stderr).toBe(true)
      for (const p of ['/proc/self/fd/3', '/dev/fd/3', './l', '/proc/self/root/bin/rm', '/proc/thread-self/fd/3', './3']) expect(r.stdout, r.stderr).toMatch(new RegExp(`^${p.replaceAll('.', '\\.')} 1$`, 'm'))
      expect(r.stdout).toMatch(/^\/proc\/\d+\/fd\/3 1$/m)
      expect(r.stderr).toContain('PermissionError')
      expect(r.stdout).toContain('after')
      // each one handed to the check as unresolved, with its argv, for the record
      expect(seen.filter((s) => s.unresolved === true && s.argv[0] === 'x')).toHaveLength(7)
      expect(seen.every((s) => !s.unresolved || s.realPath === '')).toBe(true)
    }, 60_000)

    it('a missing program is only missing (a shell trying each PATH entry gets ENOENT, then runs the one that exists); a symlink, a relative path after cd and an fd exec are known by what they run', async () => {
      const ws = temps.make('dsh-exec-')
      fs.mkdirSync(path.join(ws, 'd'))
      fs.writeFileSync(path.join(ws, 'd', 'f'), 'keep')
      fs.symlinkSync('../../../../../../../bin/rm', path.join(ws, 'd', 'up'))
      fs.symlinkSync('/usr/bin/../bin/./rm', path.join(ws, 'd', 'dots'))
      const { sandbox, seen } = await service([backend], ws, isRm, ['rm'])
      const r = await run(sandbox, ws, [
        '/nowhere/rm f; echo "missing $?"',
        'PATH=/nowhere:/usr/local/bin:/usr/bin:/bin; true; echo "path $?"',
        'cd d && ./up f; echo "up $?"; ./dots f; echo "dots $?"; ../d/./up f; echo "rel $?"',
        'python3 -c \'import os; fd = os.open("/usr/bin/rm", os.O_PATH); os.execveat(fd, "", ["x", "f"], {}, follow_symlinks=True) if hasattr(os, "execveat") else os.execve(fd, ["x", "f"], {})\'; echo "fd $?"',
      ].join('; '))
      expect(r.stdout, r.stderr).toMatch(/^missing 127$/m)
      expect(r.stdout).toMatch(/^path 0$/m)
      for (const name of ['up', 'dots', 'rel']) expect(r.stdout).toMatch(new RegExp(`^${name} 126$`, 'm'))
      expect(r.stdout).toMatch(/^fd 1$/m)
      expect(fs.existsSync(path.join(ws, 'd', 'f'))).toBe(true)
      // a missing program is not sent (no name listed), and nothing was unresolved
      expect(seen.some((s) => s.path === '/nowhere/rm')).toBe(true)
      expect(seen.filter((s) => s.unresolved)).toEqual([])
      expect(seen).toContainEqual(expect.objectContaining({ path: './up', realPath: expect.stringMatching(/\/rm$/) }))
      expect(seen).toContainEqual(expect.objectContaining({ path: '', realPath: expect.stringMatching(/\/rm$/), argv: ['x', 'f'] }))
    }, 60_000)

    it('a script whose interpreter is missing is sent with its #! line and an empty real path, and later execs are still decided', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'true'), '#!/nowhere/interp -x\n')
      fs.chmodSync(path.join(ws, 'true'), 0o755)
      const { sandbox, seen } = await service([backend], ws, isRm, ['true'])
      const r = await run(sandbox, ws, './true; echo "missing $?"; /bin/true; echo "after $?"')
      expect(r.stdout, r.stderr).toMatch(/^missing 12[67]$/m)
      expect(r.stdout).toMatch(/^after 0$/m)
      expect(seen).toContainEqual(expect.objectContaining({ path: './true', interpreters: [{ line: '/nowhere/interp -x', realPath: '' }] }))
      expect(seen.filter((s) => s.path === '/bin/true')).toHaveLength(1)
    }, 60_000)

    it('reads an argv where the kernel would: strings and a pointer table ending right before an unreadable page, a misaligned table across two pages, more pointers than one read takes', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'layout.py'), LAYOUT)
      const { sandbox, seen } = await service([backend], ws, isRm)
      const r = await run(sandbox, ws, 'python3 layout.py aligned; python3 layout.py misaligned')
      const line = ['a0', ...Array.from({ length: 199 }, (_, i) => `a${i + 1}`), 'last']
      expect(r.stdout.split('\n').filter((l) => l === line.join(' ')), r.stderr).toHaveLength(2)
      expect(seen.filter((s) => s.path === '/bin/echo' && !s.truncated && JSON.stringify(s.argv) === JSON.stringify(['/bin/echo', ...line]))).toHaveLength(2)
    }, 60_000)

    it('where process_vm_readv is refused (a container\'s seccomp profile), the stopped process is read through /proc/PID/mem', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'f'), 'keep')
      const { sandbox, seen } = await service([backend], ws, isRm)
      const confined = await sandbox.confine(['/bin/sh', '-c', '/bin/echo "a  b" c; /bin/rm f; echo "rm $?"'], { mode: 'workspace-write', workspace: ws }, call)
      try {
        const proc = startProcess({ argv: ['python3', '-c', NO_VM_READ, ...confined.argv], cwd: ws, env: { ...sandboxEnv(ws), ...confined.spawnEnv }, timeoutMs: 30_000, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250 })
        const out = await proc.done
        expect(out.stdout.text(), out.stderr.text()).toContain('a  b c')
        expect(out.stdout.text()).toMatch(/^rm 126$/m)
      } finally {
        confined.cleanup()
      }
      expect(fs.existsSync(path.join(ws, 'f'))).toBe(true)
      expect(seen).toContainEqual(expect.objectContaining({ path: '/bin/echo', argv: ['/bin/echo', 'a  b', 'c'] }))
      expect(seen).toContainEqual(expect.objectContaining({ path: '/bin/rm', argv: ['/bin/rm', 'f'] }))
    }, 60_000)

    it('an exec of a FIFO is never opened by the supervisor (it opens for reading only what is a regular file)', async () => {
      const ws = temps.make('dsh-exec-')
      const fifo = path.join(ws, 'fifo')
      execFileSync('mkfifo', ['-m', '0755', fifo])
      // a writer on the host, blocked in open until some reader opens the FIFO
      const writer = spawn('/bin/sh', ['-c', `exec 3>'${fifo}'; echo opened`], { stdio: ['ignore', 'pipe', 'ignore'] })
      try {
        await waitForWchan(writer.pid!, 'wait_for_partner')
        const { sandbox, seen } = await service([backend], ws, () => false)
        const r = await run(sandbox, ws, './fifo; echo "fifo $?"')
        expect(r.stdout, r.stderr).toMatch(/^fifo 126$/m)
        expect(seen).toContainEqual(expect.objectContaining({ path: './fifo' }))
        // still waiting for its partner: nothing opened the FIFO for reading during the call
        expect(fs.readFileSync(`/proc/${writer.pid}/wchan`, 'utf8')).toBe('wait_for_partner')
      } finally {
        writer.kill('SIGKILL')
      }
    }, 60_000)

    it('the launcher\'s own argv under another program is asked like any exec (its pass is for its own path only)', async () => {
      const ws = temps.make('dsh-exec-')
      const { sandbox, seen } = await service([backend], ws, isRm)
      // the command's own argv, read from its shell's cmdline, handed to rm
      const r = await run(sandbox, ws, 'python3 -c \'import os, sys; a = open("/proc/%d/cmdline" % os.getppid(), "rb").read().split(b"\\0")[:-1]\ntry: os.execv("/bin/rm", a)\nexcept PermissionError: print("refused")\'')
      expect(r.stdout, r.stderr).toContain('refused')
      expect(seen).toContainEqual(expect.objectContaining({ path: '/bin/rm', argv: ['/bin/sh', '-c', expect.stringContaining('python3')] }))
    }, 60_000)

    it('the probe says the backend can stop execs here (dsh inspect shows it)', async () => {
      const ws = temps.make('dsh-exec-')
      const { sandbox } = await service([backend], ws, () => false)
      const details = (await sandbox.probe()).candidates.find((c) => c.name === backend)?.probe?.details as Record<string, unknown>
      expect(backend === 'landlock' ? details.exec_notify : details.execNotify).toBe(true)
    })

    it('a check that throws refuses the exec (fail closed)', async () => {
      const ws = temps.make('dsh-exec-')
      fs.writeFileSync(path.join(ws, 'f'), 'keep')
      const ctx = new Context()
      contexts.push(ctx)
      ctx.plugin(SandboxService, { backends: [backend], workspace: ws, mode: 'workspace-write' })
      await ctx.start()
      const sandbox = ctx.get('sandbox') as SandboxService
      sandbox.restrict(() => ({ exec: { check: () => { throw new Error('broken check') } } }))
      const r = await run(sandbox, ws, '/bin/rm f; echo "rm $?"')
      expect(r.stdout).toMatch(/^rm 126$/m)
      expect(fs.existsSync(path.join(ws, 'f'))).toBe(true)
    }, 60_000)

    it('without a call to record for, no exec is stopped and exec-rules is unenforced', async () => {
      const ws = temps.make('dsh-exec-')
      const { sandbox, seen } = await service([backend], ws, () => true)
      const confined = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
      confined.cleanup()
      expect(confined.unenforced).toContain('exec-rules')
      expect(confined.enforcement).toBe('partial')
      expect(confined.argv).not.toContain('--exec-notify')
      expect(seen).toEqual([])
    })
  })
}

describe('a backend that cannot stop execs', () => {
  it('says exec-rules in unenforced (text matching applies alone), and a policy without exec rules adds nothing', async () => {
    const ws = temps.make('dsh-exec-')
    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(SandboxService, { backends: [], workspace: ws })
    await ctx.start()
    const sandbox = ctx.get('sandbox') as SandboxService
    const provider: SandboxProvider = {
      name: 'no-notify', platforms: [process.platform],
      probe: async () => ({ available: true }),
      confine: (): ProviderConfined => ({ argv: ['/bin/true'], enforcement: 'full', unenforced: [] }),
    }
    sandbox.provide(provider)
    const plain = await sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }, call)
    expect(plain.unenforced).not.toContain('exec-rules')
    sandbox.restrict(() => ({ exec: { check: () => ({ allow: true }) } }))
    const confined = await sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }, call)
    expect(confined.unenforced).toEqual([...plain.unenforced, 'exec-rules'])
    expect(confined.enforcement).toBe('partial')
    expect((await sandbox.describe({ mode: 'read-only', workspace: ws })).unenforced).toContain('exec-rules')
  })

  it('a restriction whose exec has no check() refuses the policy', async () => {
    const ws = temps.make('dsh-exec-')
    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(SandboxService, { backends: [], workspace: ws })
    await ctx.start()
    const sandbox = ctx.get('sandbox') as SandboxService
    sandbox.restrict(() => ({ exec: {} as never }))
    expect(() => sandbox.resolve({ mode: 'read-only', workspace: ws })).toThrow(/answered an exec without a check\(\)/)
  })
})
