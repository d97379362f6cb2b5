/**
 * Reload: settings files are watched and re-checked before every call; a
 * broken file keeps the last good hooks and (under onError deny) refuses every
 * call until it is fixed. Protected settings: a file a confined command could
 * write is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { describeError } from '@dsh/kernel'
import { fixture, group, hooksKernel, plug, type HooksKernel } from './helpers.js'
// the watcher's debounce is private to the plugin: read here on purpose, to be due when it is
import { RELOAD_DEBOUNCE_MS } from '../../plugins/hooks-claude-code/src/limits.js'

let k: HooksKernel | undefined
let t: TestKernel | undefined
const dirs: string[] = []
afterEach(async () => {
  await k?.cleanup()
  await t?.cleanup()
  k = t = undefined
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const SETTINGS = '.claude/settings.json'
const denyRm = () => JSON.stringify({ hooks: { PreToolUse: [group('Bash', fixture('deny-rm.sh'))] } })
const exit2 = () => JSON.stringify({ hooks: { PreToolUse: [group('Bash', fixture('exit2.py'))] } })

async function withSettings(content: string | undefined, config: Record<string, unknown> = {}) {
  k = await hooksKernel({ settingsFiles: [SETTINGS], ...config }, content === undefined ? {} : { [SETTINGS]: content })
  return k
}

function nextReload(k: HooksKernel): Promise<{ files: string[]; problems: string[] }> {
  return new Promise((resolve) => {
    const dispose = k.ctx.on('hooks/reloaded', (report) => {
      dispose()
      resolve(report)
    })
  })
}

describe('reload', () => {
  it('an edited settings file applies to the very next call', async () => {
    const k = await withSettings(undefined)
    expect((await k.call('bash', { command: 'rm -rf /' })).isError).toBe(false)
    k.write(SETTINGS, denyRm())
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.code).toBe('DENIED')
    k.write(SETTINGS, exit2())
    expect((await k.call('bash', { command: 'rm -rf /' })).isError).toBe(false)
    expect((await k.call('bash', { command: 'sudo ls' })).error?.code).toBe('DENIED')
  })

  it('the watcher reloads without a call (the .claude directory created later included)', async () => {
    const k = await withSettings(undefined)
    const reloaded = nextReload(k)
    k.write(SETTINGS, denyRm())
    const report = await reloaded
    expect(report.files).toEqual([join(k.dir, SETTINGS)])
    expect(report.problems).toEqual([])
  })

  it('a deleted settings file takes its hooks with it', async () => {
    const k = await withSettings(denyRm())
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.code).toBe('DENIED')
    rmSync(join(k.dir, SETTINGS))
    expect((await k.call('bash', { command: 'rm -rf /' })).isError).toBe(false)
  })

  it('a broken file under onError deny: every call is refused until it is fixed, and it is logged once', async () => {
    const k = await withSettings(denyRm())
    k.write(SETTINGS, '{ "hooks": { "PreToolUse": [ ')
    for (const command of ['ls', 'pwd']) {
      const result = await k.call('bash', { command })
      expect(result.error?.code).toBe('DENIED')
      expect(result.error?.message).toMatch(/hook settings cannot be used.*settings\.json: not valid JSON/)
    }
    expect(k.events('hook/config-error')).toHaveLength(1)
    expect(k.events('hook/config-error')[0].data).toMatchObject({ file: join(k.dir, SETTINGS), effect: 'deny' })
    expect(k.ran).toEqual([])
    k.write(SETTINGS, denyRm())
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.message).toContain('rm -rf is not allowed')
  })

  it('a broken file under onError ignore: the last good hooks keep running', async () => {
    const k = await withSettings(denyRm(), { onError: 'ignore' })
    k.write(SETTINGS, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '(', hooks: [] }] } }))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect((await k.call('bash', { command: 'rm -rf /' })).error?.message).toContain('rm -rf is not allowed')
    expect(k.events('hook/config-error')[0].data).toMatchObject({ effect: 'ignore', message: expect.stringContaining('hooks.PreToolUse[0].matcher') })
  })

  it('the watcher reports a broken file', async () => {
    const k = await withSettings(denyRm())
    const reloaded = nextReload(k)
    k.write(SETTINGS, 'nope')
    expect((await reloaded).problems).toEqual([expect.stringContaining('not valid JSON')])
  })

  it('disposing the plugin closes the watcher: no reload afterwards', async () => {
    const k = await withSettings(denyRm())
    let reloads = 0
    k.ctx.on('hooks/reloaded', () => { reloads++ })
    k.fork.dispose()
    // a watcher of the test's own on the same directory, debounced as the plugin's: libuv hands one
    // change to every watcher of a directory in one dispatch, so an open plugin watcher's timer is due
    // with this one's, and has fired (its reload is synchronous) once this one's has
    const settled = new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const watcher = watch(join(k.dir, '.claude'), () => {
        clearTimeout(timer)
        timer = setTimeout(() => {
          watcher.close()
          setImmediate(resolve)
        }, RELOAD_DEBOUNCE_MS)
      })
    })
    k.write(SETTINGS, exit2())
    await settled
    expect(reloads).toBe(0)
  })
})

describe('protected settings', () => {
  async function load(config: Record<string, unknown>, sandbox?: unknown) {
    t = await createTestKernel()
    mkdirSync(join(t.dir, '.claude'), { recursive: true })
    mkdirSync(join(t.dir, 'config'), { recursive: true })
    writeFileSync(join(t.dir, SETTINGS), denyRm())
    writeFileSync(join(t.dir, 'config/hooks.json'), denyRm())
    return plug(t, { workspace: t.dir, settingsFiles: [SETTINGS], codexFiles: [], ...config }, sandbox).then(() => undefined, (error) => error)
  }

  it('without a sandbox service, .claude/settings.json in the workspace loads', async () => {
    expect(await load({})).toBeUndefined()
  })

  it('a settings file elsewhere in the workspace is refused: a confined command could rewrite it', async () => {
    const error = await load({ settingsFiles: ['config/hooks.json'] })
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    expect(error.message).toMatch(/config\/hooks\.json lies inside the writable root .* but not under a protected path/)
  })

  it('a .claude/settings.json that is a symlink to an unprotected file is refused', async () => {
    t = await createTestKernel()
    mkdirSync(join(t.dir, '.claude'))
    writeFileSync(join(t.dir, 'plain.json'), denyRm())
    symlinkSync(join(t.dir, 'plain.json'), join(t.dir, SETTINGS))
    const error = await plug(t, { workspace: t.dir, settingsFiles: [SETTINGS], codexFiles: [] }).catch((e) => e)
    expect(error?.message).toMatch(/settings\.json \(really .*plain\.json\) lies inside the writable root .* not under a protected path/)
  })

  it('a settings file outside every writable root loads', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'dsh-hooks-outside-'))
    dirs.push(outside)
    writeFileSync(join(outside, 'settings.json'), denyRm())
    expect(await load({ settingsFiles: [join(outside, 'settings.json')] })).toBeUndefined()
  })

  it('writableRoots extend the check: a file in one of them is refused', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dsh-hooks-root-'))
    dirs.push(root)
    writeFileSync(join(root, 'settings.json'), denyRm())
    expect((await load({ writableRoots: [root], settingsFiles: [join(root, 'settings.json')] }))?.message).toMatch(/inside the writable root/)
  })

  const sandbox = (result: unknown) => ({ confine: async () => result })
  it('a sandbox that enforces protected paths fully: loads', async () => {
    expect(await load({}, sandbox({ argv: [], backend: 'bwrap', enforcement: 'full', unenforced: [] }))).toBeUndefined()
  })

  it('a sandbox that cannot keep protected paths read-only (Landlock): refused with the backend named', async () => {
    const error = await load({}, sandbox({ argv: [], backend: 'landlock', enforcement: 'partial', unenforced: ['metadata', 'launcher-sigkill', 'protected-paths'] }))
    expect(error?.message).toMatch(/the landlock sandbox cannot keep protected paths read-only here \(protected-paths\)/)
  })

  it('a partial sandbox whose gaps are unrelated: loads', async () => {
    expect(await load({}, sandbox({ argv: [], backend: 'landlock', enforcement: 'partial', unenforced: ['metadata', 'signals-outside'] }))).toBeUndefined()
  })

  it('absent-protected-paths: .claude present at start loads', async () => {
    expect(await load({}, sandbox({ argv: [], backend: 'bwrap', enforcement: 'partial', unenforced: ['absent-protected-paths'] }))).toBeUndefined()
  })

  /** Start the plugin with `.claude` absent under a sandbox answering `confined` (and `extra`), create the settings, and call. */
  async function createdAfterStart(confined: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const fake = { defaults: { workspace: '', allowedRoots: [] as string[] }, confine: async () => ({ argv: [], enforcement: 'partial', ...confined }), ...extra }
    t = await createTestKernel()
    fake.defaults.workspace = t.dir
    fake.defaults.allowedRoots = [t.dir]
    await plug(t, { workspace: t.dir, settingsFiles: [SETTINGS], codexFiles: [] }, fake)
    t.ctx.plugin({ name: 'tool', inject: ['tools'], apply: (ctx) => { ctx.tools.register({ name: 'bash', description: '', parameters: { type: 'object' }, execute: () => 'ran' }) } })
    mkdirSync(join(t.dir, '.claude'))
    writeFileSync(join(t.dir, SETTINGS), denyRm())
    return t.call('bash', { command: 'ls' })
  }

  it('absent-protected-paths: a .claude created after start is refused at reload', async () => {
    const result = await createdAfterStart({ backend: 'bwrap', unenforced: ['absent-protected-paths'] })
    expect(result.error?.message).toMatch(/\.claude did not exist when the kernel started/)
  })

  it('protected-symlinks: a .claude that is a symlink is refused', async () => {
    t = await createTestKernel()
    const elsewhere = mkdtempSync(join(tmpdir(), 'dsh-hooks-claude-'))
    dirs.push(elsewhere)
    writeFileSync(join(elsewhere, 'settings.json'), denyRm())
    symlinkSync(elsewhere, join(t.dir, '.claude'))
    const error = await plug(t, { workspace: t.dir, settingsFiles: [SETTINGS], codexFiles: [] }, sandbox({ argv: [], backend: 'bwrap', enforcement: 'partial', unenforced: ['protected-symlinks'] })).catch((e) => e)
    expect(error?.message).toMatch(/protected-symlinks/)
  })

  it('a partial sandbox that does not say what it leaves out: refused', async () => {
    expect((await load({}, sandbox({ argv: [], backend: 'mystery', enforcement: 'partial' })))?.message).toMatch(/only partially without saying what it leaves out/)
  })

  it('a sandbox that fails to describe itself: refused; one that is unavailable (confines nothing): loads', async () => {
    const broken = { confine: async () => { throw new Error('probe crashed') } }
    expect((await load({}, broken))?.message).toMatch(/could not say whether it protects \.claude: probe crashed/)
    await t!.cleanup()
    const unavailable = { confine: async () => { throw new KernelError('SANDBOX_UNAVAILABLE', 'no backend works') } }
    expect(await load({}, unavailable)).toBeUndefined()
  })

  it('the sandbox\'s allowed roots count as writable roots', async () => {
    const other = mkdtempSync(join(tmpdir(), 'dsh-hooks-allowed-'))
    dirs.push(other)
    writeFileSync(join(other, 'settings.json'), denyRm())
    const fake = { defaults: { workspace: other, allowedRoots: [other] }, confine: async () => ({ argv: [], backend: 'bwrap', enforcement: 'full', unenforced: [] }) }
    expect((await load({ settingsFiles: [join(other, 'settings.json')] }, fake))?.message).toMatch(/inside the writable root .*dsh-hooks-allowed-.* not under a protected path/)
  })

  it('the real sandbox of this machine: the verdict follows what its backend reports', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'dsh-hooks-real-'))
    dirs.push(ws)
    mkdirSync(join(ws, '.claude'))
    writeFileSync(join(ws, SETTINGS), denyRm())
    const { createKernel } = await import('dsh')
    const probe = await createKernel({ dataDir: join(ws, '.dsh'), sandbox: { workspace: ws } })
    const sandboxService = probe.ctx.get('sandbox') as any
    let confined: any
    try {
      confined = await sandboxService.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
    } catch (error) {
      confined = { error }
    } finally {
      await probe.dispose()
    }
    const started = await createKernel({ dataDir: join(ws, '.dsh'), sandbox: { workspace: ws }, plugins: { 'hooks-claude-code': { workspace: ws } } }).then(
      async (kernel) => { await kernel.dispose(); return undefined },
      (error) => error,
    )
    const unprotected = !confined.error && confined.enforcement !== 'full' && confined.unenforced.includes('protected-paths')
    console.log(`real sandbox: ${confined.error ? describeError(confined.error) : `${confined.backend} ${confined.enforcement} ${JSON.stringify(confined.unenforced)}`} → ${started ? 'refused' : 'loaded'}`)
    if (unprotected) expect(started?.message).toMatch(/cannot keep protected paths read-only/)
    else expect(started).toBeUndefined()
  })

  it('the real Landlock backend: .claude, copied and put back, loads; so does a file under .dsh, which it does not put back as a whole, once the plugin registered the file itself (copied and put back)', async (ctx) => {
    const { SandboxService } = await import('@dsh/sandbox')
    const hooks = await import('@dsh/hooks-claude-code')
    t = await createTestKernel()
    mkdirSync(join(t.dir, '.claude'))
    writeFileSync(join(t.dir, SETTINGS), denyRm())
    mkdirSync(join(t.dir, '.dsh'), { recursive: true })
    writeFileSync(join(t.dir, '.dsh/hooks.json'), denyRm())
    const isolated = t.ctx.isolate('sandbox')
    // a subclass: the kernel already runs SandboxService itself, and cordis refuses a plugin twice
    class LandlockSandbox extends SandboxService {}
    isolated.plugin(LandlockSandbox, { workspace: t.dir, backends: ['landlock'] })
    await t.ctx.lifecycle.flush()
    const status = await (isolated.get('sandbox') as any).probe()
    if (!status.chosen) {
      console.log(`skipped: landlock is not available here (${JSON.stringify(status.candidates)})`)
      ctx.skip()
    }
    const plugIn = async (config: Record<string, unknown>) => {
      const fork = isolated.plugin(hooks as any, { workspace: t!.dir, codexFiles: [], ...config }) as any
      await t!.ctx.lifecycle.flush()
      const error = fork.runtime.error
      fork.dispose()
      return error
    }
    expect(await plugIn({ settingsFiles: [SETTINGS] })).toBeUndefined()
    expect(await plugIn({ settingsFiles: ['.dsh/hooks.json'] })).toBeUndefined()
    // registered while the plugin ran, gone with it
    expect((isolated.get('sandbox') as any).protectedRegistered()).toEqual([])
  })

  it('protected-paths with a ledger (Landlock alone): a .claude absent at start and created later is refused at reload', async () => {
    const result = await createdAfterStart({ backend: 'landlock', unenforced: ['protected-paths'], restores: [] }, {
      readProtected: (file: string) => ({ from: 'disk' as const, text: existsSync(file) ? readFileSync(file, 'utf8') : undefined }),
      protectedStamp: () => '',
    })
    expect(result.error?.message).toMatch(/\.claude did not exist when the kernel started/)
  })

  it('a ledger that refuses the file (a restore that failed) refuses it at start, with the reason', async () => {
    const fake = {
      confine: async () => ({ argv: [], backend: 'landlock', enforcement: 'partial', unenforced: ['protected-paths'], restores: [join(t!.dir, '.claude')] }),
      readProtected: () => ({ refused: 'putting back .claude after a confined call failed (EPERM)' }),
      protectedStamp: () => 'u',
    }
    t = await createTestKernel()
    mkdirSync(join(t.dir, '.claude'))
    writeFileSync(join(t.dir, SETTINGS), denyRm())
    const error = await plug(t, { workspace: t.dir, settingsFiles: [SETTINGS], codexFiles: [] }, fake).catch((e) => e)
    expect(error?.message).toMatch(/refusing to load hooks: putting back \.claude after a confined call failed \(EPERM\)/)
  })

  it('a settings file that becomes unprotected later (replaced by a symlink) is refused at reload', async () => {
    const k = await withSettings(denyRm())
    k.write('plain.json', exit2())
    rmSync(join(k.dir, SETTINGS))
    symlinkSync(join(k.dir, 'plain.json'), join(k.dir, SETTINGS))
    const result = await k.call('bash', { command: 'ls' })
    expect(result.error?.message).toMatch(/refusing to load hooks: .*not under a protected path/)
  })
})
