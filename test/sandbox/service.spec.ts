// SandboxService: policy checks at the boundary, the provider chain (provided
// first, probed once, fail closed), danger-full-access, status, and the
// mode resolution order. Backends here are fakes unless a test says otherwise;
// the real ones are attacked in test/adversarial.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError, SessionService } from '@dsh/kernel'
import {
  bwrapProvider, landlockProvider, SandboxService, type ProbeResult, type ProviderConfined, type SandboxConfig, type SandboxProvider, DEFAULT_LIMITS, DEFAULT_POOL_IDLE_MS, DEFAULT_READ_DENY, PROTECTED_NAMES, DEFAULT_PROTECTED_PATHS, type SandboxMode,
} from '@dsh/sandbox'
import { rejection } from '../rejection.js'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const tmp = (): string => temps.make('dsh-sandbox-')
const contexts: Context[] = []
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.stop()
  temps.removeAll()
})

async function start(config: SandboxConfig = {}): Promise<{ ctx: Context; sandbox: SandboxService }> {
  const ctx = new Context()
  contexts.push(ctx)
  ctx.plugin(SandboxService, { backends: [], ...config })
  await ctx.start()
  return { ctx, sandbox: ctx.get('sandbox') as SandboxService }
}

interface Fake extends SandboxProvider {
  probes: number
  confines: number
}

function fake(name: string, probe: () => ProbeResult | Promise<ProbeResult> = () => ({ available: true }), confine?: (argv: readonly string[]) => ProviderConfined): Fake {
  const f: Fake = {
    name,
    platforms: [process.platform],
    probes: 0,
    confines: 0,
    async probe() {
      f.probes++
      return probe()
    },
    confine(argv) {
      f.confines++
      return confine ? confine(argv) : { argv: ['/fake', name, ...argv], enforcement: 'full', unenforced: [] }
    },
  }
  return f
}


describe('policy checks', () => {
  const bad: Array<[string, (ws: string, file: string) => [unknown, unknown], string]> = [
    ['argv that is not an array', (ws) => ['sh -c true', { mode: 'read-only', workspace: ws }], 'argv'],
    ['an empty argv', (ws) => [[], { mode: 'read-only', workspace: ws }], 'argv'],
    ['a non-string argument', (ws) => [['/bin/sh', 1], { mode: 'read-only', workspace: ws }], 'argv[1]'],
    ['an argument with NUL', (ws) => [['/bin/sh', 'a\0b'], { mode: 'read-only', workspace: ws }], 'argv[1]'],
    ['an unknown mode', (ws) => [['/bin/true'], { mode: 'yolo', workspace: ws }], 'mode'],
    ['a missing mode', (ws) => [['/bin/true'], { workspace: ws }], 'mode'],
    ['a relative workspace', () => [['/bin/true'], { mode: 'read-only', workspace: 'some/dir' }], 'workspace'],
    ['a workspace that does not exist', (ws) => [['/bin/true'], { mode: 'read-only', workspace: path.join(ws, 'nope') }], 'workspace'],
    ['a workspace that is a file', (_ws, file) => [['/bin/true'], { mode: 'read-only', workspace: file }], 'workspace'],
    ['a bad network value', (ws) => [['/bin/true'], { mode: 'read-only', workspace: ws, network: 'maybe' }], 'network'],
    ['an unknown policy field', (ws) => [['/bin/true'], { mode: 'read-only', workspace: ws, writable: true }], 'writable'],
    ['writableRoots that is not an array', (ws) => [['/bin/true'], { mode: 'workspace-write', workspace: ws, writableRoots: ws }], 'writableRoots'],
    ['a policy that is not an object', () => [['/bin/true'], null], 'policy'],
  ]
  for (const [what, make, field] of bad) {
    it(`${what}: INVALID_POLICY naming ${field}, and nothing is probed or run`, async () => {
      const ws = tmp()
      const file = path.join(ws, 'file')
      fs.writeFileSync(file, '')
      const { sandbox } = await start({ workspace: ws })
      const provider = fake('fake')
      sandbox.provide(provider)
      const [argv, policy] = make(ws, file)
      const error = await rejection(sandbox.confine(argv as string[], policy as any))
      expect(error.code).toBe('INVALID_POLICY')
      expect(error.details).toEqual({ field })
      expect(error.message).toContain(field)
      expect([provider.probes, provider.confines]).toEqual([0, 0])
    })
  }

  it('a writable root outside what the host allows: INVALID_POLICY, in workspace-write only', async () => {
    const [allowed, other] = [tmp(), tmp()]
    const { sandbox } = await start({ workspace: allowed })
    const provider = fake('fake')
    sandbox.provide(provider)
    const e1 = await rejection(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: allowed, writableRoots: [other] }))
    expect([e1.code, e1.details]).toEqual(['INVALID_POLICY', { field: 'writableRoots[0]' }])
    const e2 = await rejection(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: other }))
    expect([e2.code, e2.details]).toEqual(['INVALID_POLICY', { field: 'workspace' }])
    // a symlink inside the allowed root that points outside is judged by its target
    fs.symlinkSync(other, path.join(allowed, 'link'))
    const e3 = await rejection(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: allowed, writableRoots: [path.join(allowed, 'link')] }))
    expect(e3.details).toEqual({ field: 'writableRoots[0]' })
    expect(provider.confines).toBe(0)
    // the twin: reading elsewhere is fine, and so is a root inside the allowed one
    fs.mkdirSync(path.join(allowed, 'sub'))
    await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: other })).resolves.toMatchObject({ backend: 'fake' })
    await expect(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: allowed, writableRoots: [path.join(allowed, 'sub')] })).resolves.toMatchObject({ backend: 'fake' })
  })

  it('resolve() hands providers real paths, the workspace first, only in workspace-write', async () => {
    const ws = tmp()
    fs.mkdirSync(path.join(ws, 'a'))
    fs.symlinkSync(path.join(ws, 'a'), path.join(ws, 'alias'))
    const { sandbox } = await start({ workspace: ws })
    expect(sandbox.resolve({ mode: 'workspace-write', workspace: ws, writableRoots: [path.join(ws, 'alias'), `${ws}/a/../a`], readDeny: [] }))
      .toEqual({ mode: 'workspace-write', workspace: ws, writableRoots: [ws, path.join(ws, 'a')], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES, registeredPaths: [] })
    expect(sandbox.resolve({ mode: 'read-only', workspace: ws, writableRoots: [path.join(ws, 'a')] }).writableRoots).toEqual([])
  })

  it('read-policy paths sharing an ancestor are resolved through it, each resolution looking again', async () => {
    const [ws, outside, elsewhere] = [tmp(), tmp(), tmp()].map((dir) => fs.realpathSync(dir))
    fs.mkdirSync(path.join(outside, 'keys'))
    const link = path.join(outside, 'link')
    fs.symlinkSync(path.join(outside, 'keys'), link)
    const { sandbox } = await start({ workspace: ws })
    // one exists, one is missing, one is missing two levels down: all through the same symlinked ancestor
    fs.writeFileSync(path.join(outside, 'keys', 'id'), '')
    const policy = { mode: 'read-only' as const, workspace: ws, readDeny: [`${link}/id`, `${link}/token`, `${link}/cloud/creds`], readAllow: [`${link}/cloud`] }
    const first = sandbox.resolve(policy)
    const keys = path.join(outside, 'keys')
    expect([first.readDeny, first.readAllow]).toEqual([[`${keys}/id`, `${keys}/token`, `${keys}/cloud/creds`], [`${keys}/cloud`]])
    // the ancestor swapped between two calls: the next resolution follows the new one, for every path
    fs.mkdirSync(path.join(elsewhere, 'cloud'))
    fs.unlinkSync(link)
    fs.symlinkSync(elsewhere, link)
    const second = sandbox.resolve(policy)
    expect([second.readDeny, second.readAllow]).toEqual([[`${elsewhere}/id`, `${elsewhere}/token`, `${elsewhere}/cloud/creds`], [`${elsewhere}/cloud`]])
  })
})

describe('the provider chain', () => {
  it('danger-full-access is the only unconfined mode and says so', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    const confined = await sandbox.confine(['/bin/echo', 'hi'], { mode: 'danger-full-access', workspace: ws })
    expect(confined).toMatchObject({ argv: ['/bin/echo', 'hi'], backend: 'none', enforcement: 'full', unenforced: [] })
  })

  it('no backend at all: every confine fails closed with SANDBOX_UNAVAILABLE', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    for (const mode of ['read-only', 'workspace-write'] as const) {
      const error = await rejection(sandbox.confine(['/bin/true'], { mode, workspace: ws }))
      expect(error.code).toBe('SANDBOX_UNAVAILABLE')
    }
  })

  it('every candidate unavailable or throwing: SANDBOX_UNAVAILABLE naming each reason', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    sandbox.provide(fake('down', () => ({ available: false, reason: 'no kernel support' })))
    sandbox.provide(fake('broken', () => {
      throw new Error('exploded')
    }))
    sandbox.provide(fake('silent', () => undefined as any))
    const error = await rejection(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }))
    expect(error.code).toBe('SANDBOX_UNAVAILABLE')
    expect(error.message).toMatch(/down: no kernel support; broken: probe threw: exploded; silent: probe of silent returned no result/)
    expect(sandbox.status().chosen).toBeUndefined()
  })

  it('provided providers come first, each is probed once (also under concurrent calls), the first available wins', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    const down = fake('down', () => ({ available: false, reason: 'nope' }))
    const up = fake('up')
    const later = fake('later')
    sandbox.provide(down)
    sandbox.provide(up)
    sandbox.provide(later)
    expect(sandbox.status()).toEqual({
      chosen: undefined,
      candidates: ['down', 'up', 'later'].map((name) => ({ name, source: 'provided', platforms: [process.platform] })),
    })
    const results = await Promise.all([1, 2, 3].map(() => sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws, readDeny: [] })))
    for (const r of results) expect(r).toMatchObject({ argv: ['/fake', 'up', '/bin/true'], backend: 'up', enforcement: 'full' })
    expect([down.probes, up.probes, later.probes]).toEqual([1, 1, 0])
    expect(sandbox.status().chosen).toBe('up')
  })

  it('probeInBackground: a confine made while the probe runs waits for it, and is refused when it fails', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    let finish!: (result: ProbeResult) => void
    const slow = fake('slow', () => new Promise<ProbeResult>((resolve) => (finish = resolve)))
    sandbox.provide(slow)
    sandbox.probeInBackground()
    // the probe started at once, not at the first confine
    await new Promise((resolve) => setImmediate(resolve))
    expect(slow.probes).toBe(1)
    let settled = false
    const call = sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }).finally(() => (settled = true))
    call.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 50))
    // neither run unconfined nor refused before the probe answered
    expect(settled).toBe(false)
    expect(slow.confines).toBe(0)
    finish({ available: false, reason: 'the probe command did not run' })
    const error = await rejection(call)
    expect(error.code).toBe('SANDBOX_UNAVAILABLE')
    expect(error.message).toMatch(/slow: the probe command did not run/)
    expect([slow.probes, slow.confines]).toEqual([1, 0])
  })

  it('probeInBackground: the probe it started is the one confine uses (probed once), and the first available wins', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    const down = fake('down', () => new Promise<ProbeResult>((resolve) => setTimeout(() => resolve({ available: false, reason: 'nope' }), 20)))
    const up = fake('up', () => new Promise<ProbeResult>((resolve) => setTimeout(() => resolve({ available: true }), 20)))
    sandbox.provide(down)
    sandbox.provide(up)
    sandbox.probeInBackground()
    sandbox.probeInBackground()
    const confined = await sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws, readDeny: [] })
    expect(confined).toMatchObject({ argv: ['/fake', 'up', '/bin/true'], backend: 'up' })
    expect([down.probes, up.probes]).toEqual([1, 1])
  })

  it('a provider is removed with the plugin that provided it', async () => {
    const ws = tmp()
    const { ctx, sandbox } = await start({ workspace: ws })
    const provider = fake('plugged')
    const fork = ctx.plugin({
      name: 'provider-plugin',
      inject: ['sandbox'],
      apply: (inner: Context) => {
        inner.sandbox.provide(provider)
      },
    })
    await ctx.lifecycle.flush()
    expect((await sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws })).backend).toBe('plugged')
    fork.dispose()
    expect(sandbox.status().candidates.map((c) => c.name)).toEqual([])
    const error = await rejection(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }))
    expect(error.code).toBe('SANDBOX_UNAVAILABLE')
  })

  it('a provider whose confine throws or returns nonsense fails closed, never passes the command through', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    const cases: Array<(argv: readonly string[]) => ProviderConfined> = [
      () => {
        throw new Error('cannot build')
      },
      (argv) => ({ argv: [], enforcement: 'full', unenforced: [] }) as any,
      (argv) => ({ argv: [...argv], enforcement: 'total', unenforced: [] }) as any,
      (argv) => ({ argv: [...argv], enforcement: 'full' }) as any,
    ]
    for (const [i, confine] of cases.entries()) {
      const inner = await start({ workspace: ws })
      inner.sandbox.provide(fake(`bad${i}`, undefined, confine))
      const error = await rejection(inner.sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }))
      expect(error.code, `case ${i}`).toBe('SANDBOX_UNAVAILABLE')
    }
    expect(sandbox.status().candidates).toEqual([])
  })

  it('provide() refuses malformed providers and the name "none"', async () => {
    const { sandbox } = await start({ workspace: tmp() })
    for (const bad of [null, {}, { name: 'none', platforms: [], probe() {}, confine() {} }, { name: 'x', platforms: 'linux', probe() {}, confine() {} }, { name: 'x', platforms: [] }]) {
      expect(() => sandbox.provide(bad as any)).toThrow(KernelError)
    }
  })

  it('a provider for another platform is listed but never probed', async () => {
    const ws = tmp()
    const { sandbox } = await start({ workspace: ws })
    const other = { ...fake('elsewhere'), platforms: ['aix' as NodeJS.Platform] }
    sandbox.provide(other)
    await rejection(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }))
    expect(sandbox.status().candidates[0]).toMatchObject({ name: 'elsewhere', probe: { available: false, reason: `not for ${process.platform}` } })
  })

  it.skipIf(process.platform !== 'linux')('a launcher that does not exist makes both Linux backends unavailable', async () => {
    // bwrap is looked for first; any trusted binary in its place reaches the launcher check, with or without bwrap here
    const bwrap = '/bin/true'
    for (const provider of [landlockProvider({ launcher: '/nonexistent/landlock-run' }), bwrapProvider({ bwrap, launcher: '/nonexistent/landlock-run' })]) {
      const probe = await provider.probe()
      expect(probe.available, provider.name).toBe(false)
      expect(probe.reason).toMatch(/\/nonexistent\/landlock-run does not exist/)
      expect(() => provider.confine(['/bin/true'], { mode: 'read-only', workspace: '/', writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny: [], readAllow: [], protectedPaths: PROTECTED_NAMES })).toThrow(/before a successful probe/)
    }
  })

  it.skipIf(process.platform !== 'linux')('a launcher binary others may write is not trusted', async () => {
    const dir = tmp()
    const copy = path.join(dir, 'landlock-run')
    fs.copyFileSync(path.resolve(import.meta.dirname, '../../native/landlock-run/landlock-run'), copy)
    fs.chmodSync(copy, 0o777)
    const probe = await landlockProvider({ launcher: copy }).probe()
    expect(probe).toMatchObject({ available: false, reason: `${copy} is writable by group or others` })
  })
})

describe('configuration', () => {
  it('unknown keys and bad values are INVALID_CONFIG naming them', () => {
    for (const [config, pattern] of [
      [{ bogus: 1 }, /unknown key sandbox\.bogus/],
      [{ mode: 'yolo' }, /sandbox config/],
      [{ allowedRoots: ['relative'] }, /allowedRoots\[0\] must be an absolute path/],
      [{ backends: ['docker'] }, /sandbox config/],
      [{ readDeny: ['../relative'] }, /sandbox config: sandbox\.readDeny\[0\] must be absolute, start with ~\/, or be relative to the workspace without "\.\." parts/],
      [{ readDeny: ['./**/*.pem'] }, /sandbox config: sandbox\.readDeny\[0\] is a pattern; .*Read\(\.\.\.\) deny rule/],
      [{ readAllow: [''] }, /sandbox config: sandbox\.readAllow\[0\] must be a non-empty path/],
      [{ readDeny: '/etc/shadow' }, /sandbox config/],
      [{ protectedPaths: ['../up'] }, /sandbox config: sandbox\.protectedPaths\[0\] must be a relative path/],
      [{ protectedPaths: ['/abs'] }, /sandbox\.protectedPaths\[0\] must be a relative path/],
      [{ git: 'writable' }, /sandbox config/],
    ] as const) {
      expect(() => new SandboxService(new Context(), config as any)).toThrow(pattern)
    }
  })

  it('defaults: read-only, the current directory, network off, the workspace as the only allowed root, the pool on', () => {
    const sandbox = new SandboxService(new Context(), {})
    expect(sandbox.defaults).toEqual({ mode: 'read-only', workspace: process.cwd(), network: 'off', allowedRoots: [process.cwd()], limits: DEFAULT_LIMITS, readDeny: DEFAULT_READ_DENY, readAllow: [], protectedPaths: DEFAULT_PROTECTED_PATHS, git: 'read-only', pool: { idleMs: DEFAULT_POOL_IDLE_MS } })
  })

  it('pool: false turns the pool off; an object sets its idle time; anything else names sandbox.pool', () => {
    expect(new SandboxService(new Context(), { pool: false }).defaults.pool).toBe(false)
    expect(new SandboxService(new Context(), { pool: { idleMs: 5 } }).defaults.pool).toEqual({ idleMs: 5 })
    expect(() => new SandboxService(new Context(), { pool: { idle: 5 } } as any)).toThrow(/unknown key sandbox\.pool\.idle/)
    expect(() => new SandboxService(new Context(), { pool: 'yes' } as any)).toThrow(/sandbox config/)
  })
})

describe('mode resolution', () => {
  async function withSession(config: SandboxConfig = {}) {
    const dir = tmp()
    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(SessionService, { dataDir: dir })
    ctx.plugin(SandboxService, { backends: [], workspace: dir, ...config })
    await ctx.start()
    const sandbox = ctx.get('sandbox') as SandboxService
    const session = (ctx.get('sessions') as SessionService).open({ id: 's1' })
    return { sandbox, session, dir }
  }

  it('default, then the latest sandbox/mode event, then an approved explicit mode above both', async () => {
    const { sandbox, session } = await withSession()
    expect(sandbox.resolveMode(session)).toBe('read-only')
    await sandbox.setMode(session, 'workspace-write', 'the user asked')
    expect(sandbox.resolveMode(session)).toBe('workspace-write')
    await sandbox.setMode(session, 'read-only')
    expect(sandbox.resolveMode(session)).toBe('read-only')
    expect(sandbox.resolveMode(session, 'danger-full-access')).toBe('danger-full-access')
    expect(sandbox.resolveMode(session)).toBe('read-only') // the explicit grant was for one call
  })

  it('sessions do not share modes', async () => {
    const { sandbox, session, dir } = await withSession()
    const other = new SessionService(new Context(), { dataDir: dir }).open({ id: 's2' })
    await sandbox.setMode(session, 'workspace-write')
    expect(sandbox.resolveMode(other)).toBe('read-only')
    other.close()
  })

  it('the configured default applies until the session says otherwise', async () => {
    const { sandbox, session } = await withSession({ mode: 'workspace-write' })
    expect(sandbox.resolveMode(session)).toBe('workspace-write')
    await sandbox.setMode(session, 'read-only')
    expect(sandbox.resolveMode(session)).toBe('read-only')
  })

  it('setMode is on disk (fsynced class) when it resolves, and survives reopening the session', async () => {
    const { sandbox, session, dir } = await withSession()
    const event = await sandbox.setMode(session, 'workspace-write', 'why')
    expect(event).toMatchObject({ type: 'sandbox/mode', data: { mode: 'workspace-write', reason: 'why' } })
    const lines = fs.readFileSync(session.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.at(-1)).toMatchObject({ type: 'sandbox/mode', data: { mode: 'workspace-write' } })
    session.close()
    const ctx = new Context()
    contexts.push(ctx)
    ctx.plugin(SessionService, { dataDir: dir })
    ctx.plugin(SandboxService, { backends: [], workspace: dir })
    await ctx.start()
    const reopened = (ctx.get('sessions') as SessionService).open({ id: 's1' })
    expect((ctx.get('sandbox') as SandboxService).resolveMode(reopened)).toBe('workspace-write')
  })

  it('a mode event is seen however it was appended, after hot-path lines the tracker skips', async () => {
    const { sandbox, session } = await withSession()
    expect(sandbox.resolveMode(session)).toBe('read-only')
    const ways = [
      (mode: SandboxMode) => session.write('sandbox/mode', { mode }),
      (mode: SandboxMode) => session.post('sandbox/mode', { mode }),
      (mode: SandboxMode) => void session.append('sandbox/mode', { mode }),
    ]
    for (const [i, way] of ways.entries()) {
      // hot-path lines (never parsed for the mode) before and after the switch
      session.write('turn/begin', { turn: i })
      session.post('turn/end', { turn: i })
      expect(sandbox.resolveMode(session)).toBe(i % 2 ? 'workspace-write' : 'read-only')
      way(i % 2 ? 'read-only' : 'workspace-write')
      session.post('turn/begin', { turn: i })
      expect(sandbox.resolveMode(session)).toBe(i % 2 ? 'read-only' : 'workspace-write')
    }
    await session.flush()
  })

  it('a sandbox/mode event that is not a mode resolves to read-only (fail closed)', async () => {
    const { sandbox, session } = await withSession({ mode: 'workspace-write' })
    await session.append('sandbox/mode', { mode: 'everything' as any })
    expect(sandbox.resolveMode(session)).toBe('read-only')
  })

  it('setMode and resolveMode refuse what is not a mode, and log nothing then', async () => {
    const { sandbox, session } = await withSession()
    expect(() => sandbox.setMode(session, 'root' as any)).toThrow(expect.objectContaining({ code: 'INVALID_POLICY' }))
    expect(() => sandbox.setMode(session, 'read-only', 42 as any)).toThrow(expect.objectContaining({ code: 'INVALID_POLICY' }))
    expect(() => sandbox.resolveMode(session, 'root' as any)).toThrow(expect.objectContaining({ code: 'INVALID_POLICY' }))
    expect(session.events().some((e) => e.type === 'sandbox/mode')).toBe(false)
  })
})
