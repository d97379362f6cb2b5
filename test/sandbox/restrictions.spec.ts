// ctx.sandbox.restrict: what plugins add to every policy the service resolves.
// It only narrows — its paths join readDeny even where the policy's own list
// is empty — it leaves with the plugin that added it, and a restriction that
// throws or answers nonsense refuses the policy (nothing is confined without
// it). claude-code-permissions' feed says what a pattern cannot cover.
import fs from 'node:fs'
import path from 'node:path'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { deniedBy } from '@dsh/sandbox'
import { compileRuleSet, INLINE, sandboxRestriction } from '@dsh/claude-code-permissions'
import { rejection } from '../rejection.js'
import { sandboxServices } from '../sandbox-services.js'
import { tempDirs } from '../temp-dirs.js'

const temps = tempDirs()
const services = sandboxServices({ backends: [] })
afterEach(async () => {
  await services.stopAll()
  temps.removeAll()
})

/** A service whose only provider records the policy it was asked to confine (no process runs). */
async function start(ws: string) {
  const { ctx, sandbox, provider } = await services.recorded(ws, (_argv, policy) => ({ argv: ['/bin/true'], enforcement: 'full', unenforced: [], hidden: [...policy.readDeny].filter((p) => fs.existsSync(p)) }))
  return { ctx, sandbox, seen: provider.policies as any[] }
}

describe('ctx.sandbox.restrict', () => {
  it('joins readDeny even when the policy sets none, keeps read-only paths as protected entries, and leaves with its plugin', async () => {
    const ws = temps.make('dsh-restrict-')
    fs.writeFileSync(path.join(ws, '.env'), 'x')
    const { ctx, sandbox, seen } = await start(ws)
    const fork = ctx.plugin({
      name: 'restrictor',
      inject: ['sandbox'],
      apply: (ctx: Context) => {
        ctx.sandbox.restrict(() => ({ readDeny: [path.join(ws, '.env')], readOnly: [path.join(ws, 'src')], unenforced: ['path-rules-new-paths'] }))
      },
    })
    const confined = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws, readDeny: [] })
    expect(seen[0].readDeny).toEqual([path.join(ws, '.env')])
    expect(seen[0].registeredPaths).toEqual([path.join(ws, 'src')])
    expect(confined.unenforced).toContain('path-rules-new-paths')
    expect(confined.enforcement).toBe('partial')
    fork.dispose()
    const after = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws, readDeny: [] })
    expect(seen[1].readDeny).toEqual([])
    expect(after.unenforced).toEqual([])
    confined.cleanup()
    after.cleanup()
  })

  it('a restriction that throws, or answers a relative path or a bad id, refuses the policy', async () => {
    const ws = temps.make('dsh-restrict-')
    const { sandbox, seen } = await start(ws)
    for (const [answer, message] of [
      [() => { throw new Error('rules not loaded') }, /a sandbox restriction failed: rules not loaded; the call is refused/],
      [() => ({ readDeny: ['relative/.env'] }), /readDeny\[0\] "relative\/\.env", not an absolute path/],
      [() => ({ unenforced: ['Not An Id'] }), /unenforced id "Not An Id"/],
      [() => 'nonsense', /answered "nonsense", not a restriction/],
    ] as const) {
      const dispose = sandbox.restrict(answer as any)
      const error = await rejection(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws }))
      expect(error).toMatchObject({ code: 'SANDBOX_UNAVAILABLE', message: expect.stringMatching(message) })
      expect(() => sandbox.resolve({ mode: 'read-only', workspace: ws })).toThrow(message)
      dispose()
    }
    expect(seen).toEqual([])
  })

  it('a read-only path that is or holds the workspace makes the call read-only; a readDeny holding it cannot be hidden and is said', async () => {
    const ws = temps.make('dsh-restrict-')
    const { sandbox, seen } = await start(ws)
    const dispose = sandbox.restrict(() => ({ readOnly: [ws] }))
    const confined = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
    expect(seen[0]).toMatchObject({ mode: 'read-only', writableRoots: [] })
    confined.cleanup()
    dispose()
    const parent = path.dirname(ws)
    sandbox.restrict(() => ({ readOnly: [parent], readDeny: [parent] }))
    const held = await sandbox.confine(['/bin/true'], { mode: 'workspace-write', workspace: ws })
    expect(seen[1]).toMatchObject({ mode: 'read-only', writableRoots: [] })
    expect(seen[1].readDeny).not.toContain(parent)
    expect(held.unenforced).toContain('read-deny-workspace')
    held.cleanup()
  })
})

describe('deniedBy with joined lists', () => {
  it('a path denied itself stays denied inside an allowed one under a broader deny; a rule\'s exact test denies what no list names', () => {
    const policy = { readDeny: ['/h/.ssh', '/h/.ssh/public/key'], readAllow: ['/h/.ssh/public'], readDenied: (p: string) => (p.endsWith('.pem') ? 'Read(**/*.pem)' : undefined) }
    expect(deniedBy(policy, '/h/.ssh/public/key')).toBe('/h/.ssh/public/key')
    expect(deniedBy(policy, '/h/.ssh/public/other')).toBeUndefined()
    expect(deniedBy(policy, '/h/.ssh/id_rsa')).toBe('/h/.ssh')
    expect(deniedBy(policy, '/w/a.pem')).toBe('Read(**/*.pem)')
    expect(deniedBy(policy, '/w/a.txt')).toBeUndefined()
  })
})

describe('claude-code-permissions feeds the sandbox', () => {
  const bases = (ws: string) => ({ workspace: ws, home: '/nonexistent-home', rootOf: () => ws })
  const rules = (ws: string, deny: string[]) => compileRuleSet([{ source: INLINE, root: ws, permissions: { deny } }], { workspace: ws, home: '/nonexistent-home', extraTools: new Set() })

  it('a literal rule and dir/** name one path; a pattern is expanded to what matches now and says what it cannot cover', () => {
    const ws = temps.make('dsh-feed-')
    fs.mkdirSync(path.join(ws, 'a/b'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'a/b/k.pem'), 'x')
    fs.writeFileSync(path.join(ws, 'top.pem'), 'x')
    const literal = sandboxRestriction(rules(ws, ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Read(~/.aws/**)', 'Read(//etc/hosts)', 'Bash(rm:*)', 'Read(./notes)']), bases(ws))!
    expect(literal.readDeny).toEqual([path.join(ws, '.env'), path.join(ws, 'secrets'), '/nonexistent-home/.aws', '/etc/hosts', path.join(ws, 'notes')])
    expect(literal.readOnly).toEqual([path.join(ws, 'src')])
    expect(literal.unenforced).toEqual([])
    const pattern = sandboxRestriction(rules(ws, ['Read(**/*.pem)']), bases(ws))!
    expect(pattern.readDeny.sort()).toEqual([path.join(ws, 'a/b/k.pem'), path.join(ws, 'top.pem')])
    expect(pattern.unenforced).toEqual(['path-rules-new-paths'])
    expect(pattern.readDenied!(path.join(ws, 'later/new.pem'))).toBe('Read(**/*.pem)')
    expect(pattern.readDenied!(path.join(ws, 'a/b/k.txt'))).toBeUndefined()
    // the walk is bounded: beyond it, the paths it did not reach are said to be uncovered
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(ws, `f${i}`), 'x')
    expect(sandboxRestriction(rules(ws, ['Read(**/*.pem)']), bases(ws), 10)!.unenforced).toEqual(['path-rules-new-paths', 'path-rules-truncated'])
    // allow and ask rules, and rules naming no path, feed nothing
    expect(sandboxRestriction(compileRuleSet([{ source: INLINE, root: ws, permissions: { allow: ['Read(./x)'], ask: ['Edit(./y)'], deny: ['Read', 'WebFetch'] } }], { workspace: ws, home: '/h', extraTools: new Set() }), bases(ws))).toBeUndefined()
  })
})
