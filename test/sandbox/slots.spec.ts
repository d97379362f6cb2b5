// Sandboxes built ahead (process/slots.ts, landlock-run --slot) on each real backend: a slot is used
// only for the view it was built for — a protected path created since, a changed policy, a changed
// workspace or a reloaded config kill it (its pid gone, a new one built) — a slot that died is
// SANDBOX_UNAVAILABLE and the next call works on a fresh one, and a command reaches neither the
// host's end of its slot nor a slot waiting for another call.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createKernel } from 'dsh'
import { sandboxEnv, SandboxService, startProcess, type Confined, type LocalBackend, type SandboxConfig, type SandboxMode } from '@dsh/sandbox'
import { LINUX_BACKENDS, lacks } from '../backends.js'
import { gone, pidAlive } from '../processes.js'
import { onBackend, sandboxServices } from '../sandbox-services.js'

const temps: string[] = []
function workspace(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-slots-')))
  temps.push(dir)
  return dir
}

/** The lane's waiting launcher, once the pool has built it (a call's cleanup builds it a moment later). */
async function waiting(service: SandboxService, lane: string, ms = 5000): Promise<number> {
  const until = Date.now() + ms
  for (;;) {
    const pid = service.slotsWaiting()[lane]
    if (pid !== undefined) return pid
    if (Date.now() > until) throw new Error(`no slot waiting for ${JSON.stringify(lane)}: ${JSON.stringify(service.slotsWaiting())}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function run(confined: Confined, cwd: string) {
  const out = await startProcess({ argv: confined.argv, cwd, env: { ...sandboxEnv(cwd), ...confined.spawnEnv }, slot: confined.slot, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250, timeoutMs: 20_000 }).done
  return { code: out.exitCode, stdout: out.stdout.text(), stderr: out.stderr.text() }
}

for (const backend of LINUX_BACKENDS) {
  const skip = await lacks(backend, `the ${backend} slot tests`)
  describe.skipIf(skip)(`sandboxes built ahead on the ${backend} backend`, () => {
    const services = sandboxServices(onBackend(backend))
    const start = async (config: SandboxConfig = {}) => {
      const { ctx, sandbox } = await services.start(config)
      return { ctx, service: sandbox }
    }
    let service: SandboxService
    beforeAll(async () => {
      service = (await start()).service
    })
    afterAll(async () => {
      await services.stopAll()
    })
    afterEach(() => {
      for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    })
    const lane = (mode: SandboxMode) => `${backend}\0${mode}`
    /** A call as bash makes it: confine, run (through the view's slot when one matches), clean up. */
    const call = async (ws: string, script: string, mode: SandboxMode = 'workspace-write', on = service) => {
      const confined = await on.confine(['/bin/sh', '-c', script], { mode, workspace: ws })
      expect(confined.slot).toBeDefined()
      try {
        return await run(confined, ws)
      } finally {
        confined.cleanup()
      }
    }

    it('the second call of a view runs in the slot the first one left, and the third in a new one', async () => {
      const ws = workspace()
      expect((await call(ws, 'echo one')).stdout).toBe('one\n')
      const first = await waiting(service, lane('workspace-write'))
      const r = await call(ws, 'echo two > made; cat made')
      expect(r).toMatchObject({ code: 0, stdout: 'two\n' })
      // taken: its launcher ran the command and ended with it
      expect(await gone(first)).toBe(true)
      const second = await waiting(service, lane('workspace-write'))
      expect(second).not.toBe(first)
      expect(fs.readFileSync(path.join(ws, 'made'), 'utf8')).toBe('two\n')
    })

    it('a protected path created between two calls (git init) discards the slot: it is killed, never used', async () => {
      const ws = workspace()
      await call(ws, 'true')
      const built = await waiting(service, lane('workspace-write'))
      expect(spawnSync('git', ['init', '-q', ws]).status).toBe(0)
      // the command tries to plant a hook in the .git made after the slot was built
      const r = await call(ws, 'mkdir -p .git/hooks; echo planted > .git/hooks/pre-commit; echo done')
      expect(r.stdout).toBe('done\n')
      expect(await gone(built)).toBe(true)
      expect(fs.existsSync(path.join(ws, '.git/hooks/pre-commit'))).toBe(false)
      expect(await waiting(service, lane('workspace-write'))).not.toBe(built)
    })

    it('a changed policy (a restriction added) discards the slot, and the new one hides the denied file', async () => {
      const ws = workspace()
      fs.writeFileSync(path.join(ws, 'secret.txt'), 's3cret\n')
      await call(ws, 'true', 'read-only')
      const built = await waiting(service, lane('read-only'))
      const { ctx, service: own } = await start()
      await own.confine(['/bin/true'], { mode: 'read-only', workspace: ws }).then((c) => run(c, ws).finally(() => c.cleanup()))
      const ownSlot = await waiting(own, lane('read-only'))
      ctx.effect(() => own.restrict(() => ({ readDeny: [path.join(ws, 'secret.txt')] })))
      const r = await call(ws, 'cat secret.txt || echo refused', 'read-only', own)
      expect(r.stdout).not.toContain('s3cret')
      expect(await gone(ownSlot)).toBe(true)
      // another service's slot is its own: untouched
      expect(pidAlive(built)).toBe(true)
    })

    it('a changed workspace discards the slot', async () => {
      const a = workspace()
      const b = workspace()
      await call(a, 'true')
      const built = await waiting(service, lane('workspace-write'))
      expect((await call(b, 'pwd')).stdout).toBe(`${b}\n`)
      expect(await gone(built)).toBe(true)
      expect(await waiting(service, lane('workspace-write'))).not.toBe(built)
    })

    it('a slot killed while waiting: the call is SANDBOX_UNAVAILABLE, never run elsewhere, and the next call works on a fresh one', async () => {
      const ws = workspace()
      await call(ws, 'true')
      const built = await waiting(service, lane('workspace-write'))
      process.kill(-built, 'SIGKILL')
      expect(await gone(built)).toBe(true)
      await expect(call(ws, 'echo ran > ran')).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' })
      expect(fs.existsSync(path.join(ws, 'ran'))).toBe(false)
      expect(await call(ws, 'echo again')).toMatchObject({ code: 0, stdout: 'again\n' })
      const fresh = await waiting(service, lane('workspace-write'))
      expect(fresh).not.toBe(built)
      expect(await call(ws, 'echo pooled')).toMatchObject({ code: 0, stdout: 'pooled\n' })
    })

    it('the command holds no descriptor but its stdio, and reaches no slot waiting for another call', async () => {
      const ws = workspace()
      await call(ws, 'true', 'read-only')
      const other = await waiting(service, lane('read-only'))
      // the waiting launcher's process that blocks on fd 3, and the launcher itself
      const pids = [other, ...fs.readFileSync(`/proc/${other}/task/${other}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)]
      const probes = pids.map((pid) => `kill -0 ${pid} 2>/dev/null && echo signalled-${pid}; (echo x > /proc/${pid}/fd/3) 2>/dev/null && echo wrote-${pid}; ls /proc/${pid}/fd 2>/dev/null | grep -q . && echo listed-${pid}`).join('; ')
      await call(ws, 'true')
      const r = await call(ws, `ls /proc/self/fd | tr '\\n' ' '; echo; ${probes}; echo end`)
      expect(r.stdout.split('\n')[0].trim().split(' ').map(Number).filter((fd) => fd > 2).length).toBeLessThanOrEqual(1) // ls's own directory fd
      expect(r.stdout).not.toMatch(/signalled-|wrote-/)
      // plain Landlock shows the host's /proc (`host-processes`: any process's fd names, one-shot alike); the others their own
      if (backend !== 'landlock') expect(r.stdout).not.toMatch(/listed-/)
      expect(r.stdout).toContain('end')
      expect(pidAlive(other)).toBe(true)
      // still good for its own call
      expect(await call(ws, 'echo ro', 'read-only')).toMatchObject({ code: 0, stdout: 'ro\n' })
      expect(await gone(other)).toBe(true)
    })

    it('pool: false starts no slot, and a disposed service leaves none running', async () => {
      const ws = workspace()
      const off = await start({ pool: false })
      const confined = await off.service.confine(['/bin/true'], { mode: 'read-only', workspace: ws })
      expect(confined.slot).toBeUndefined()
      await run(confined, ws)
      confined.cleanup()
      expect(off.service.slotsWaiting()).toEqual({})
      const on = await start()
      await call(ws, 'true', 'read-only', on.service)
      const built = await waiting(on.service, lane('read-only'))
      await on.ctx.stop()
      expect(await gone(built)).toBe(true)
    })
  })
}

describe.skipIf(await lacks('landlock', 'the reload slot test'))('sandboxes built ahead across a reload', () => {
  it('a reloaded config kills the slot built under the old one; bash runs in the new service', async () => {
    const ws = workspace()
    const config = { dataDir: path.join(ws, '.dsh'), sandbox: { mode: 'workspace-write' as const, workspace: ws, backends: ['landlock' as const] }, plugins: { 'workspace-tools': { workspace: ws } } }
    const kernel = await createKernel(config)
    try {
      const session = kernel.openSession({ id: 'slots-reload' })
      session.beginTurn()
      const bash = async (command: string) => kernel.execute({ callId: `c${Math.random()}`, name: 'bash', arguments: { command }, session })
      expect((await bash('echo one')).isError).toBe(false)
      const before = await waiting(kernel.ctx.sandbox, 'landlock\0workspace-write')
      expect((await bash('echo two')).isError).toBe(false)
      const built = await waiting(kernel.ctx.sandbox, 'landlock\0workspace-write')
      expect(built).not.toBe(before)
      await kernel.reload({ ...config, sandbox: { ...config.sandbox, readDeny: [path.join(ws, 'secret')] } })
      expect(await gone(built)).toBe(true)
      fs.writeFileSync(path.join(ws, 'secret'), 'hidden\n')
      const r = await bash('cat secret || echo refused')
      expect(JSON.stringify(r.content)).not.toContain('hidden')
      expect(JSON.stringify(r.content)).toContain('refused')
    } finally {
      await kernel.dispose()
      for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
