// bash through the real pipeline and the real sandbox of this machine: the
// result, the audit facts, the mode, the environment, stdin, output caps,
// deadlines and aborts killing the whole group, protected paths, and
// failing closed without a backend.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { SessionService } from '@dsh/kernel'
import { SandboxService } from '@dsh/sandbox'
import { SystemPromptService } from '@dsh/system-prompt'
import { ToolService } from '@dsh/tools'
import * as workspaceTools from '@dsh/workspace-tools'
import { setup, teardown, text, tmp } from './helpers.js'
import { noneLeftWith } from '../processes.js'

afterEach(teardown)

/** A sleep of about a second whose argument no other process has: the background process is found by it */
const uniqueSleep = () => `1.${String(process.pid).padStart(7, '0')}${String(++sleeps).padStart(3, '0')}`
let sleeps = 0
const linux = process.platform === 'linux'

describe.skipIf(!linux)('bash, confined', () => {
  it('reports stdout, stderr and the exit code; a non-zero exit is a normal result; the sandbox is in tool/result', async () => {
    const { k, resultEvent } = await setup()
    const r = await k.call('bash', { command: 'echo out; echo err >&2; exit 3', description: 'exit three' }, { callId: 'b1' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('out\n[stderr]\nerr\n[exit code 3]')
    expect(r.value).toEqual({ stdout: 'out\n', stderr: 'err\n', exitCode: 3 })
    const chosen = k.ctx.sandbox.status().chosen
    expect(['bwrap', 'landlock-ns', 'landlock']).toContain(chosen)
    expect(resultEvent('b1')).toMatchObject({ sandbox: { backend: chosen, enforcement: expect.stringMatching(/^(full|partial)$/), unenforced: expect.any(Array) } })
    expect(text(await k.call('bash', { command: 'true' }))).toBe('[exit code 0]')
  })

  it('read-only (the default) refuses writes in the workspace; workspace-write allows them', async () => {
    const { k, ws } = await setup()
    const ro = await k.call('bash', { command: 'echo x > f' })
    expect(ro.isError).toBe(false)
    expect((ro.value as any).exitCode).not.toBe(0)
    expect(fs.existsSync(path.join(ws, 'f'))).toBe(false)
    await k.ctx.sandbox.setMode(k.session, 'workspace-write')
    expect((await k.call('bash', { command: 'echo x > f' })).value).toMatchObject({ exitCode: 0 })
    expect(fs.readFileSync(path.join(ws, 'f'), 'utf8')).toBe('x\n')
  })

  it('a fixed environment: nothing of the host\'s (BASH_ENV, NODE_OPTIONS, any other variable) gets in', async () => {
    const { k, ws } = await setup()
    const saved = { ...process.env }
    Object.assign(process.env, { DSH_HOST_MARKER: 'leak', BASH_ENV: '/nonexistent/bashenv', NODE_OPTIONS: '--require /nonexistent' })
    try {
      const r = await k.call('bash', { command: 'env' })
      const vars = Object.fromEntries(String((r.value as any).stdout).trim().split('\n').map((l) => l.split('=')))
      expect(vars).toMatchObject({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: ws, LANG: 'C.UTF-8' })
      const shellOwn = new Set(['PWD', 'SHLVL', '_', 'OLDPWD'])
      expect(Object.keys(vars).filter((v) => !shellOwn.has(v)).sort()).toEqual(['HOME', 'LANG', 'PATH'])
    } finally {
      for (const key of ['DSH_HOST_MARKER', 'BASH_ENV', 'NODE_OPTIONS']) if (!(key in saved)) delete process.env[key]
      Object.assign(process.env, saved)
    }
  })

  it('no stdin: a command reading it sees end of file at once', async () => {
    const { k } = await setup()
    const started = Date.now()
    const r = await k.call('bash', { command: 'cat; echo done' })
    expect((r.value as any).stdout).toBe('done\n')
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('output is capped per stream, the rest counted', async () => {
    const { k } = await setup({ config: { maxOutputBytes: 100 } })
    const r = await k.call('bash', { command: 'head -c 5000 /dev/zero | tr "\\0" a; head -c 300 /dev/zero | tr "\\0" b >&2' })
    expect((r.value as any).stdout).toBe(`${'a'.repeat(100)}\n[4900 more bytes dropped]`)
    expect((r.value as any).stderr).toBe(`${'b'.repeat(100)}\n[200 more bytes dropped]`)
  })

  it('the deadline kills the whole group, a background child included; the call ends TIMEOUT naming the limit', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    const started = Date.now()
    const token = uniqueSleep()
    const r = await k.call('bash', { command: `(sleep ${token}; echo late > late) & echo started; sleep 30`, timeout: 300 })
    expect(r.isError).toBe(true)
    expect(r.error).toMatchObject({ code: 'TIMEOUT' })
    expect(r.error!.message).toMatch(/^bash: the command reached its deadline \(its timeout argument, 300 ms\)/)
    expect(r.error!.message).toMatch(/timed out after 300 ms and was killed\nstarted/)
    expect(Date.now() - started).toBeLessThan(5_000)
    // gone, not slept on: left alive, the background process writes `late` before it ends
    expect(await noneLeftWith(token)).toBe(true)
    expect(fs.existsSync(path.join(ws, 'late'))).toBe(false)
  })

  it('the configured deadline (bashTimeoutMs) ends TIMEOUT naming it, and kills a setsid grandchild too', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write', config: { bashTimeoutMs: 300 } })
    const token = uniqueSleep()
    const r = await k.call('bash', { command: `setsid sh -c "sleep ${token}; echo late > late" & echo started; sleep 30` })
    expect(r.error).toMatchObject({ code: 'TIMEOUT' })
    expect(r.error!.message).toMatch(/^bash: the command reached its deadline \(workspace-tools bashTimeoutMs, 300 ms\)/)
    // gone, not slept on: left alive, the background process writes `late` before it ends
    expect(await noneLeftWith(token)).toBe(true)
    expect(fs.existsSync(path.join(ws, 'late'))).toBe(false)
  })

  it('the caller\'s abort kills the whole group and ends ABORTED', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const started = Date.now()
    const token = uniqueSleep()
    const r = await k.call('bash', { command: `setsid sh -c "sleep ${token}; echo late > late" & sleep 30` }, { signal: controller.signal })
    expect(r.error?.code).toBe('ABORTED')
    expect(Date.now() - started).toBeLessThan(5_000)
    // gone, not slept on: left alive, the background process writes `late` before it ends
    expect(await noneLeftWith(token)).toBe(true)
    expect(fs.existsSync(path.join(ws, 'late'))).toBe(false)
  })

  it('a protected path the command creates is removed when the call ends, and the result says so', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    const r = await k.call('bash', { command: 'mkdir -p .claude && echo "{}" > .claude/settings.json; echo ok' })
    expect(text(r)).toContain(`[sandbox: removed or restored protected paths the command changed: ${path.join(ws, '.claude')}]`)
    expect(r.value).toMatchObject({ restoredProtectedPaths: [path.join(ws, '.claude')] })
    expect(fs.existsSync(path.join(ws, '.claude'))).toBe(false)
  })

  it('danger-full-access runs unconfined and the audit says backend none', async () => {
    const { k, out, resultEvent } = await setup({ mode: 'danger-full-access' })
    const r = await k.call('bash', { command: `echo free > ${out}/f` }, { callId: 'd1' })
    expect((r.value as any).exitCode).toBe(0)
    expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('free\n')
    expect(resultEvent('d1')).toMatchObject({ sandbox: { backend: 'none', enforcement: 'full', unenforced: [] } })
  })
})

describe('without any sandbox backend', () => {
  it('bash ends SANDBOX_UNAVAILABLE and runs nothing; the file tools still work', async () => {
    const ws = tmp('nobackend')
    const ctx = new Context()
    ctx.plugin(SessionService, { dataDir: tmp('data') })
    ctx.plugin(SystemPromptService)
    ctx.plugin(ToolService, {})
    ctx.plugin(SandboxService, { backends: [], workspace: ws, mode: 'workspace-write' })
    ctx.plugin(workspaceTools, workspaceTools.Config({} as Partial<workspaceTools.Config> as workspaceTools.Config))
    await ctx.start()
    try {
      const session = (ctx.get('sessions') as SessionService).open({ id: 't' })
      session.beginTurn()
      const tools = ctx.get('tools') as ToolService
      const r = await tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'touch ran' }, session })
      expect(r.isError).toBe(true)
      expect(r.error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE' })
      expect(r.error!.message).toMatch(/no sandbox backend can confine the command/)
      expect(fs.existsSync(path.join(ws, 'ran'))).toBe(false)
      const w = await tools.execute({ callId: 'c2', name: 'write', arguments: { file_path: 'f', content: 'x' }, session })
      expect(w.isError).toBe(false)
    } finally {
      await ctx.stop()
    }
  })
})

