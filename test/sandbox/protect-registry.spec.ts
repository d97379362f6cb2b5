// ctx.sandbox.protect(paths): registered absolute paths join every policy's
// protected paths inside its writable roots, belong to the registering
// plugin's scope (disposed with it), are refused when malformed or when
// they hold a writable root (never left writable), are copied and put back
// on every backend when regular files, and are refused by protectedEntryOf.
import fs from 'node:fs'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { findProtected, protectedEntryOf } from '@dsh/sandbox'
import { rejection } from '../rejection.js'
import { sandboxServices } from '../sandbox-services.js'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const services = sandboxServices({ backends: [] })
afterEach(async () => {
  await services.stopAll()
  temps.removeAll()
})

const start = (ws: string) => services.recorded(ws)

describe('sandbox.protect', () => {
  it('a registered file inside the workspace joins the policy, is copied and put back, and leaves with the plugin that registered it', async () => {
    const ws = temps.make('dsh-registry-')
    fs.mkdirSync(path.join(ws, 'conf'))
    const config = path.join(ws, 'conf/dsh.yml')
    const top = path.join(ws, 'dsh.yml')
    fs.writeFileSync(config, 'mine\n')
    fs.writeFileSync(top, 'top\n')
    const { ctx, sandbox } = await start(ws)
    const fork = ctx.plugin({ name: 'registrar', inject: ['sandbox'], apply: (c: Context) => void c.sandbox.protect([config, top]) })
    await ctx.lifecycle.flush()
    const policy = sandbox.resolve({ mode: 'workspace-write', workspace: ws })
    expect(policy.registeredPaths).toEqual([config, top])
    expect(sandbox.resolve({ mode: 'read-only', workspace: ws }).registeredPaths).toEqual([])
    expect(protectedEntryOf(policy.writableRoots, config, policy.protectedPaths, policy.registeredPaths)).toBe(config)
    const confined = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
    expect(confined.restores).toContain(config)
    // directly in the root: its parent, the root, cannot be renamed from inside, so it is not copied
    expect(confined.restores).not.toContain(top)
    // what a command would do, then the call ends: the file is put back
    fs.writeFileSync(config, 'evil\n')
    expect(confined.cleanup()).toContain(config)
    expect(fs.readFileSync(config, 'utf8')).toBe('mine\n')
    expect((await sandbox.describe({ mode: 'workspace-write', workspace: ws })).restores).toContain(config)
    fork.dispose()
    expect(sandbox.resolve({ mode: 'workspace-write', workspace: ws }).registeredPaths).toEqual([])
    expect(sandbox.protectedRegistered()).toEqual([])
  })

  it('a path outside every writable root is not part of the policy (read-only there anyway); a symlinked one is protected at both ends', async () => {
    const ws = temps.make('dsh-registry-')
    const outside = temps.make('dsh-registry-out-')
    fs.writeFileSync(path.join(ws, 'real.yml'), 'x\n')
    fs.symlinkSync('real.yml', path.join(ws, 'link.yml'))
    const { sandbox } = await start(ws)
    sandbox.protect([path.join(outside, 'dsh.yml'), path.join(ws, 'link.yml')])
    const policy = sandbox.resolve({ mode: 'workspace-write', workspace: ws })
    expect([...policy.registeredPaths!].sort()).toEqual([path.join(ws, 'link.yml'), path.join(ws, 'real.yml')])
  })

  it('a registered path that is or holds a writable root refuses every policy with that root (INVALID_POLICY), never confines with it writable', async () => {
    const ws = temps.make('dsh-registry-')
    const { sandbox, provider } = await start(ws)
    sandbox.protect([path.dirname(ws)])
    const error = await rejection(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws }))
    expect(KernelError.is(error, 'INVALID_POLICY')).toBe(true)
    expect((error as Error).message).toMatch(/holds, the writable root/)
    expect(provider.policies).toEqual([])
    // read-only has no writable root: nothing to refuse
    await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws })).resolves.toBeTruthy()
  })

  it('an absent registered file inside an existing protected directory is covered by it (no absent entry of its own); an absent one elsewhere is listed', () => {
    const ws = temps.make('dsh-registry-')
    fs.mkdirSync(path.join(ws, '.claude'))
    const local = path.join(ws, '.claude/settings.local.json')
    const loose = path.join(ws, 'config/hooks.json')
    const { paths } = findProtected([ws], ['.claude'], [local, loose])
    expect(paths).toContain(path.join(ws, '.claude'))
    expect(paths).not.toContain(local)
    expect(paths).toContain(loose)
    fs.writeFileSync(local, '{}')
    expect(findProtected([ws], ['.claude'], [local]).paths).toContain(local)
  })

  it('malformed lists are refused naming the entry', async () => {
    const ws = temps.make('dsh-registry-')
    const { sandbox } = await start(ws)
    for (const [paths, field] of [['x'], [['relative/dsh.yml'], 'paths[0]'], [['/a', 7], 'paths[1]'], [['/a\0b'], 'paths[0]']] as const) {
      let error: unknown
      try {
        sandbox.protect(paths as never)
      } catch (e) {
        error = e
      }
      expect(KernelError.is(error, 'INVALID_POLICY')).toBe(true)
      if (field) expect((error as KernelError).details?.field).toBe(field)
    }
  })
})
