/**
 * The one process runner (startProcess) with real processes: how a run ends
 * (a tagged termination), SIGTERM then SIGKILL after the grace, output caps,
 * a spawn failure — and that a `setsid` grandchild, which leaves the process
 * group, is killed all the same, whether it belongs to a runner's own
 * command, a hook (hooks-claude-code) or an unconfined bash command
 * (workspace-tools under danger-full-access, where no launcher reaps).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startProcess, type ProcessOptions } from '@dsh/sandbox'
import { group, hooksKernel, preHooks, type HooksKernel } from '../hooks-claude-code/helpers.js'
import { setup, teardown } from '../workspace-tools/helpers.js'
import { gone, pidAlive } from '../processes.js'

const linux = process.platform === 'linux'
const dirs: string[] = []
const strays: number[] = []
let hooks: HooksKernel | undefined

afterEach(async () => {
  await hooks?.cleanup()
  hooks = undefined
  await teardown()
  for (const pid of strays.splice(0)) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-runner-'))
  dirs.push(dir)
  return dir
}

/** The pid a command wrote to `file` (waiting for it a little), registered for cleanup. */
async function pidFrom(file: string): Promise<number> {
  const until = Date.now() + 5000
  for (;;) {
    try {
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (pid > 1) {
        strays.push(pid)
        return pid
      }
    } catch {}
    if (Date.now() > until) throw new Error(`no pid in ${file}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const base = (dir: string, command: string): ProcessOptions => ({
  argv: ['/bin/sh', '-c', command], cwd: dir, env: { PATH: '/usr/bin:/bin' }, maxOutputBytes: 1024, killGraceMs: 300, pipeGraceMs: 100,
})

describe.skipIf(!linux)('startProcess', () => {
  it('a normal exit: the code, the output, no termination', async () => {
    const out = await startProcess({ ...base(scratch(), 'echo out; echo err >&2; exit 3') }).done
    expect(out).toMatchObject({ exitCode: 3, signal: null })
    expect([out.termination, out.spawnError]).toEqual([undefined, undefined])
    expect([out.stdout.text(), out.stderr.text()]).toEqual(['out\n', 'err\n'])
  })

  it('stdin is the input given, or nothing', async () => {
    expect((await startProcess({ ...base(scratch(), 'cat'), input: 'hello' }).done).stdout.text()).toBe('hello')
    expect((await startProcess({ ...base(scratch(), 'cat; echo end') }).done).stdout.text()).toBe('end\n')
  })

  it('the deadline ends it as deadline, naming the limit, and kills a setsid grandchild that left the group', async () => {
    const dir = scratch()
    const proc = startProcess({ ...base(dir, 'setsid sleep 60 > /dev/null 2>&1 & echo $! > pid; sleep 60'), timeoutMs: 300 })
    const pid = await pidFrom(join(dir, 'pid'))
    const out = await proc.done
    expect(out.termination).toEqual({ reason: 'deadline', limitMs: 300 })
    expect(out.signal).toBe('SIGTERM')
    expect(await gone(pid)).toBe(true)
  })

  it('a process ignoring SIGTERM gets SIGKILL after the grace', async () => {
    const dir = scratch()
    const started = Date.now()
    const out = await startProcess({ ...base(dir, 'trap "" TERM; sleep 60 & wait; sleep 60'), timeoutMs: 200, killGraceMs: 400 }).done
    expect(out.termination).toEqual({ reason: 'deadline', limitMs: 200 })
    expect(out.signal).toBe('SIGKILL')
    expect(Date.now() - started).toBeGreaterThanOrEqual(550)
  })

  it('an orphan (double fork, setsid) is killed after a normal exit with reapOnExit, and left alone without it', async () => {
    const dir = scratch()
    const orphan = '(setsid sleep 60 > /dev/null 2>&1 & echo $! > pid)'
    expect((await startProcess({ ...base(dir, orphan), reapOnExit: true }).done).exitCode).toBe(0)
    expect(await gone(await pidFrom(join(dir, 'pid')))).toBe(true)
    rmSync(join(dir, 'pid'))
    expect((await startProcess({ ...base(dir, orphan) }).done).exitCode).toBe(0)
    const left = await pidFrom(join(dir, 'pid'))
    expect(pidAlive(left)).toBe(true)
  })

  it('the caller\'s abort ends it as aborted; an abort before the start runs nothing', async () => {
    const dir = scratch()
    const controller = new AbortController()
    const proc = startProcess({ ...base(dir, 'setsid sleep 60 > /dev/null 2>&1 & echo $! > pid; sleep 60'), signal: controller.signal })
    const pid = await pidFrom(join(dir, 'pid'))
    controller.abort()
    expect((await proc.done).termination).toEqual({ reason: 'aborted' })
    expect(await gone(pid)).toBe(true)
    const never = await startProcess({ ...base(dir, 'touch ran'), signal: controller.signal }).done
    expect(never).toMatchObject({ termination: { reason: 'aborted' }, exitCode: null })
    expect(() => readFileSync(join(dir, 'ran'))).toThrow()
  })

  it('an abort right after startProcess returns ends the run then and there, as aborted, not at its deadline', async () => {
    const dir = scratch()
    const controller = new AbortController()
    // the spawn is synchronous: the abort lands on a running process, whose kill is already set
    const proc = startProcess({ ...base(dir, 'sleep 60'), signal: controller.signal, timeoutMs: 60_000 })
    controller.abort()
    const outcome = await proc.done
    expect(outcome).toMatchObject({ termination: { reason: 'aborted' }, exitCode: null, signal: 'SIGTERM' })
    expect(outcome.spawnError).toBeUndefined()
  })

  it('stop() ends it with its message; the first reason stands', async () => {
    const dir = scratch()
    const proc = startProcess({ ...base(dir, 'echo $$ > started; sleep 60'), timeoutMs: 60_000 })
    await pidFrom(join(dir, 'started'))
    proc.stop({ reason: 'stopped', message: 'disposed' })
    proc.stop({ reason: 'aborted' })
    expect((await proc.done).termination).toEqual({ reason: 'stopped', message: 'disposed' })
  })

  it('output past the cap: kept and counted by default, ends the run with overflow kill', async () => {
    const dir = scratch()
    const flood = 'head -c 5000 /dev/zero | tr "\\0" a; sleep 60'
    const kept = await startProcess({ ...base(dir, 'head -c 5000 /dev/zero | tr "\\0" a'), maxOutputBytes: 100 }).done
    expect(kept.stdout.text()).toBe(`${'a'.repeat(100)}\n[4900 more bytes dropped]`)
    expect(kept.termination).toBeUndefined()
    const killed = await startProcess({ ...base(dir, flood), maxOutputBytes: 100, overflow: 'kill' }).done
    expect(killed.termination).toEqual({ reason: 'output-limit', stream: 'stdout', limitBytes: 100 })
  })

  it('the environment is what is given (and the run\'s tag), or the kernel\'s own under it with extendEnv', async () => {
    process.env.DSH_RUNNER_SPEC_HOST = 'host'
    try {
      const only = await startProcess({ ...base(scratch(), 'env'), env: { PATH: '/usr/bin:/bin', GIVEN: 'yes' } }).done
      const names = only.stdout.text().split('\n').filter(Boolean).map((line) => line.split('=')[0]).filter((name) => name !== 'PWD' && name !== 'SHLVL' && name !== '_')
      expect(names.sort()).toEqual(['DSH_PROCESS_TAG', 'GIVEN', 'PATH'])
      const extended = await startProcess({ ...base(scratch(), 'echo "$DSH_RUNNER_SPEC_HOST $GIVEN"'), env: { GIVEN: 'yes' }, extendEnv: true }).done
      expect(extended.stdout.text()).toBe('host yes\n')
    } finally {
      delete process.env.DSH_RUNNER_SPEC_HOST
    }
  })

  it('a program that cannot start is a spawn error, not an exit', async () => {
    const out = await startProcess({ ...base(scratch(), ''), argv: ['/nonexistent/program'] }).done
    expect(out.spawnError).toMatch(/ENOENT|nonexistent/)
    expect(out.exitCode).toBeNull()
  })
})

describe.skipIf(!linux)('a setsid grandchild is killed alike', () => {
  it('of a hook past its timeout', async () => {
    const dir = scratch()
    const script = join(dir, 'hook.sh')
    writeFileSync(script, `#!/bin/sh\ncat > /dev/null\nsetsid sleep 60 > /dev/null 2>&1 &\necho $! > '${dir}/pid'\nsleep 60\n`)
    chmodSync(script, 0o755)
    hooks = await hooksKernel({ hooks: preHooks(group('Bash', { command: script, timeout: 0.5 })) })
    const result = await hooks.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('DENIED')
    expect(hooks.events('hook/result')[0].data).toMatchObject({ failure: 'timeout' })
    expect(await gone(await pidFrom(join(dir, 'pid')))).toBe(true)
  })

  it('of an unconfined bash command past its deadline, and one it orphaned before exiting', async () => {
    const { k, ws } = await setup({ mode: 'danger-full-access' })
    const r = await k.call('bash', { command: 'setsid sleep 60 > /dev/null 2>&1 & echo $! > pid; sleep 60', timeout: 300 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(await gone(await pidFrom(join(ws, 'pid')))).toBe(true)
    const orphaned = await k.call('bash', { command: '(setsid sleep 60 > /dev/null 2>&1 & echo $! > pid2)' })
    expect(orphaned.value).toMatchObject({ exitCode: 0 })
    expect(await gone(await pidFrom(join(ws, 'pid2')))).toBe(true)
  })
})
