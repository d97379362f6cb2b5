/**
 * No answer fails closed: a hook that cannot start, is not found, is not
 * executable, is killed, times out or prints too much denies — unless its
 * `onError` (or the plugin's) is `ignore`. Process groups are killed, and a
 * descendant holding the output pipes open cannot hang the call.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixture, group, hooksKernel, preHooks, type HooksKernel } from './helpers.js'
import { gone } from '../processes.js'

let k: HooksKernel | undefined
const strays: number[] = []
afterEach(async () => {
  await k?.cleanup()
  k = undefined
  for (const pid of strays.splice(0)) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
})

async function withHooks(config: Record<string, unknown>) {
  k = await hooksKernel(config)
  return k
}

describe('timeouts', () => {
  it('a hook hanging past its timeout is killed and denies', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', { command: fixture('hang.sh'), timeout: 1 })) })
    const started = Date.now()
    const result = await k.call('bash', { command: 'ls' })
    // the design's latency bound: the call ends at the hook's 1 s timeout, not the script's 60 s
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.error?.message).toMatch(/did not finish within its 1 s timeout/)
    expect(k.events('hook/result')[0].data).toMatchObject({ failure: 'timeout', decision: 'deny' })
    expect(k.ran).toEqual([])
  })

  it('the same hang with onError ignore on the hook lets the call run', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', { command: fixture('hang.sh'), timeout: 1, onError: 'ignore' })) })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect(k.events('hook/result')[0].data).toMatchObject({ failure: 'timeout', decision: 'none' })
  })

  it('a hook that exits but leaves a child holding stdout: the group is killed at the timeout, and it denies', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', { command: fixture('grandchild.sh'), timeout: 1 })) })
    const started = Date.now()
    const result = await k.call('bash', { command: 'ls' })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.error?.message).toMatch(/timeout/)
    const pid = Number(k.read('grandchild.pid'))
    strays.push(pid)
    expect(await gone(pid)).toBe(true)
  })

  it('a child that escaped the group (setsid) and holds stdout open cannot hang the call', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', { command: fixture('escapee.sh'), timeout: 1 })) })
    const started = Date.now()
    const result = await k.call('bash', { command: 'ls' })
    strays.push(Number(k.read('escapee.pid')))
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(result.error?.code).toBe('DENIED')
  })

  it('the default timeout applies to a hook that sets none', async () => {
    const k = await withHooks({ defaultTimeout: 0.5, hooks: preHooks(group('Bash', fixture('hang.sh'))) })
    expect((await k.call('bash', { command: 'ls' })).error?.message).toMatch(/within its 0.5 s timeout/)
  })

  it('the caller aborting stops the hook and refuses the call', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', fixture('hang.sh'))) })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const result = await k.call('bash', { command: 'ls' }, { signal: controller.signal })
    expect(result.isError).toBe(true)
    expect(k.events('hook/result')[0].data).toMatchObject({ failure: 'aborted' })
    expect(k.ran).toEqual([])
  })
})

describe('hooks that die or cannot run', () => {
  it('a hook killed by a signal gives no answer (its earlier allow is not used): denied', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', fixture('crash.sh'))) })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/killed by SIGKILL/)
    // the script is a child of `sh -c`, which reports its death as status 137
    expect(k.events('hook/result')[0].data).toMatchObject({ exitCode: 137, failure: 'signal', decision: 'deny' })
  })

  it('a hook command that kills its own shell (the process we started) denies too', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', 'echo \'{"decision":"approve"}\'; kill -9 $$')) })
    expect((await k.call('bash', { command: 'ls' })).error?.message).toMatch(/killed by SIGKILL/)
    expect(k.events('hook/result')[0].data).toMatchObject({ signal: 'SIGKILL', exitCode: null, failure: 'signal' })
  })

  it('a missing script (exit 127) denies', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', fixture('no-such-hook.sh'))) })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/not found \(exit 127\)/)
    expect(k.events('hook/result')[0].data).toMatchObject({ exitCode: 127, failure: 'exit-127' })
  })

  it('a script that is not executable (exit 126) denies', async () => {
    k = await hooksKernel()
    const script = join(k.dir, 'not-executable.sh')
    writeFileSync(script, '#!/bin/sh\nexit 0\n')
    chmodSync(script, 0o644)
    await k.fork.dispose()
    k.fork = await (await import('./helpers.js')).plug(k, { workspace: k.dir, settingsFiles: [], codexFiles: [], hooks: preHooks(group('Bash', `'${script}'`)) })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/not executable \(exit 126\)/)
  })

  it('a missing script with onError ignore on the hook lets the call run', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', { command: fixture('no-such-hook.sh'), onError: 'ignore' })) })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
  })

  it('plugin-wide onError ignore: a crash is ignored, but a real deny still denies', async () => {
    const k = await withHooks({ onError: 'ignore', hooks: preHooks(group('Bash', fixture('crash.sh'), fixture('deny-rm.sh'))) })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.code).toBe('DENIED')
  })

  it('a hook\'s onError deny overrides the plugin\'s ignore', async () => {
    const k = await withHooks({ onError: 'ignore', hooks: preHooks(group('Bash', { command: fixture('crash.sh'), onError: 'deny' })) })
    expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('DENIED')
  })

  it('a hook\'s own exit 125 is an ordinary non-blocking exit; the launcher\'s marked 125 is no answer', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', 'cat > /dev/null; exit 125'), group('Write', 'echo "dsh-hook-launcher: pretend" >&2; exit 125')) })
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect((await k.call('write', { file_path: 'a', content: '' })).error?.message).toMatch(/gave no answer: dsh-hook-launcher: pretend/)
  })

  it('a hook that cannot start (its workspace is gone) denies', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', fixture('allow.sh'))) })
    rmSync(k.dir, { recursive: true, force: true })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.code).toBe('DENIED')
  })

  it('a hook printing more than maxOutputBytes gives no answer: denied', async () => {
    const k = await withHooks({ maxOutputBytes: 64 * 1024, hooks: preHooks(group('Bash', fixture('big-text.sh'))) })
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/printed more than 65536 bytes on stdout/)
    expect(k.events('hook/result')[0].data).toMatchObject({ failure: 'output-too-large' })
  })
})

describe('disposal', () => {
  it('disposing the plugin kills a hook that is still running', async () => {
    const k = await withHooks({ hooks: preHooks(group('Bash', fixture('grandchild.sh'))) })
    const pending = k.call('bash', { command: 'ls' })
    const pidFile = join(k.dir, 'grandchild.pid')
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 25))
    const pid = Number(readFileSync(pidFile, 'utf8'))
    strays.push(pid)
    k.fork.dispose()
    expect(await gone(pid)).toBe(true)
    expect((await pending).error?.code).toBe('DENIED')
  })
})
