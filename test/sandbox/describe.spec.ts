// SandboxService.describe(policy): how confine() would confine a command under
// a policy, without a lease. It waits for the same probe and fails closed as
// confine() does (no backend, a failed probe, a provider's nonsense, protected
// entries over the snapshot bound); under the real backends it answers what
// confine() answers, and it writes nothing to the ledger.
import fs from 'node:fs'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { ledgerDir, SandboxService, SNAPSHOT_MAX_BYTES, type ProbeResult, type ProviderConfined, type SandboxConfig, type SandboxProvider } from '@dsh/sandbox'
import { skipWhen, unavailable } from '../backends.js'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { rejection } from '../rejection.js'
import { tempDirs } from '../temp-dirs.js'

// the ledger is shared by every dsh process of the user: this file's stays its own
usePrivateTmpdir('dsh-describe-tmp-')
const temps = tempDirs()
const tmp = (): string => temps.make('dsh-describe-')
const contexts: Context[] = []
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.stop()
  temps.removeAll()
})

async function start(config: SandboxConfig = {}): Promise<SandboxService> {
  const ctx = new Context()
  contexts.push(ctx)
  ctx.plugin(SandboxService, { backends: [], ...config })
  await ctx.start()
  return ctx.get('sandbox') as SandboxService
}

function provider(name: string, probe: () => Promise<ProbeResult>, confine: () => ProviderConfined = () => ({ argv: ['/fake'], enforcement: 'full', unenforced: [] })): SandboxProvider & { confines: number } {
  const p = { name, platforms: [process.platform], confines: 0, probe, confine: () => (p.confines++, confine()) }
  return p
}


describe('describe() fails closed as confine() does', () => {
  it('made while the probe runs, it waits for it, and is refused when the probe fails', async () => {
    const ws = tmp()
    const sandbox = await start({ workspace: ws })
    let finish!: (result: ProbeResult) => void
    const slow = provider('slow', () => new Promise<ProbeResult>((resolve) => (finish = resolve)))
    sandbox.provide(slow)
    sandbox.probeInBackground()
    let settled = false
    const asked = sandbox.describe({ mode: 'workspace-write', workspace: ws }).finally(() => (settled = true))
    asked.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(settled).toBe(false)
    finish({ available: false, reason: 'the probe command did not run' })
    const error = await rejection(asked)
    expect(error.code).toBe('SANDBOX_UNAVAILABLE')
    expect(error.message).toMatch(/slow: the probe command did not run/)
    expect(slow.confines).toBe(0)
  })

  it('no backend, or a provider that throws or answers nonsense: SANDBOX_UNAVAILABLE', async () => {
    const ws = tmp()
    expect((await rejection((await start({ workspace: ws })).describe({ mode: 'workspace-write', workspace: ws }))).code).toBe('SANDBOX_UNAVAILABLE')
    const answers: Array<() => ProviderConfined> = [
      () => {
        throw new Error('cannot build')
      },
      () => ({ argv: [], enforcement: 'full', unenforced: [] }),
      () => ({ argv: ['/x'], enforcement: 'total', unenforced: [] }) as unknown as ProviderConfined,
      () => ({ argv: ['/x'], enforcement: 'full', unenforced: [], snapshot: ['/etc'] }),
    ]
    for (const [i, answer] of answers.entries()) {
      const sandbox = await start({ workspace: ws })
      sandbox.provide(provider(`bad${i}`, async () => ({ available: true }), answer))
      expect((await rejection(sandbox.describe({ mode: 'workspace-write', workspace: ws }))).code, `case ${i}`).toBe('SANDBOX_UNAVAILABLE')
    }
  })

  it('a denied path the backend does not hide is said (read-deny, partial); danger-full-access says none', async () => {
    const ws = tmp()
    const denied = tmp()
    const sandbox = await start({ workspace: ws, readDeny: [denied] })
    sandbox.provide(provider('plain', async () => ({ available: true })))
    expect(await sandbox.describe({ mode: 'workspace-write', workspace: ws })).toEqual({ backend: 'plain', enforcement: 'partial', unenforced: ['read-deny'], hidden: [], restores: [] })
    expect(await sandbox.describe({ mode: 'danger-full-access', workspace: ws })).toEqual({ backend: 'none', enforcement: 'full', unenforced: [], hidden: [], restores: [] })
  })
})

for (const backend of ['bwrap', 'landlock'] as const) {
  const why = await unavailable(backend)
  const skip = skipWhen(why !== undefined, `describe() under the real ${backend}`, `the ${backend} backend is unavailable here (${why})`)
  describe.skipIf(skip)(`describe() under the real ${backend}`, () => {
    it('answers what confine() answers, and writes nothing to the ledger', async () => {
      const ws = tmp()
      fs.mkdirSync(path.join(ws, '.claude'))
      fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{}')
      const sandbox = await start({ workspace: ws, backends: [backend] })
      const before = fs.readdirSync(ledgerDir()).sort()
      const described = await sandbox.describe({ mode: 'workspace-write', workspace: ws })
      expect(fs.readdirSync(ledgerDir()).sort()).toEqual(before)
      const confined = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
      confined.cleanup()
      expect(described).toEqual({ backend: confined.backend, enforcement: confined.enforcement, unenforced: confined.unenforced, hidden: confined.hidden, restores: confined.restores })
      if (backend === 'landlock') expect(described.restores).toContain(path.join(ws, '.claude'))
    })

    if (backend === 'landlock') {
      it('protected entries over the snapshot bound: refused as confine() refuses them (bound snapshot), the entry untouched', async () => {
        const ws = tmp()
        fs.mkdirSync(path.join(ws, '.claude'))
        const big = path.join(ws, '.claude/big')
        fs.writeFileSync(big, Buffer.alloc(SNAPSHOT_MAX_BYTES + 1))
        const sandbox = await start({ workspace: ws, backends: [backend] })
        const described = await rejection(sandbox.describe({ mode: 'workspace-write', workspace: ws }))
        const confined = await rejection(sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws }))
        expect([described.code, described.details]).toEqual([confined.code, confined.details])
        expect((described.details as { bound?: string }).bound).toBe('snapshot')
        expect(fs.statSync(big).size).toBe(SNAPSHOT_MAX_BYTES + 1)
      })
    }
  })
}
