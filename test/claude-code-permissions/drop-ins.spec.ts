/**
 * Managed settings drop-ins: `managed-settings.d/*.json` beside a managed
 * settings file are merged over it in alphabetical order — arrays from every
 * fragment, a scalar from the alphabetically last one that sets it — hidden
 * files and other extensions skipped; a fragment added later applies to the
 * next call; a bad fragment or an unreadable directory is refused by name.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dropInFiles, withDropIns } from '@dsh/claude-code-settings'
import { permissionsKernel, settings, type PermissionsKernel } from './kernel.js'

let k: PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const base = 'etc/managed-settings.json'

describe('managed-settings.d drop-ins', () => {
  it('merge over the base alphabetically: rules from all, the last defaultMode wins, hidden files ignored', async () => {
    k = await permissionsKernel({
      [base]: settings({ allow: ['Bash(make)'], defaultMode: 'dontAsk' }),
      'etc/managed-settings.d/10-security.json': settings({ deny: ['Bash(make clean)'], defaultMode: 'plan' }),
      'etc/managed-settings.d/90-override.json': settings({ defaultMode: 'bypassPermissions' }),
      'etc/managed-settings.d/.hidden.json': settings({ deny: ['Bash(ls)'] }),
      'etc/managed-settings.d/notes.txt': settings({ deny: ['Bash(ls)'] }),
    })
    const dir = join(k.dir, 'etc/managed-settings.d')
    expect(withDropIns(join(k.dir, base))).toEqual([join(dir, '90-override.json'), join(dir, '10-security.json'), join(k.dir, base)])
    await k.plug({ settingsFiles: [base] })
    const view = k.ctx.bail('permissions/rules')!
    expect(view.mode).toBe('bypassPermissions')
    expect(view.files).toEqual(withDropIns(join(k.dir, base)))
    expect(view.rules.map((rule) => [rule.list, rule.rule, rule.source])).toEqual([
      ['deny', 'Bash(make clean)', join(dir, '10-security.json')],
      ['allow', 'Bash(make)', join(k.dir, base)],
    ])
    expect((await k.call('bash', { command: 'make clean' })).error?.code).toBe('DENIED')
    // the hidden fragment's deny of ls is not read
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)

    // a fragment added later applies to the next call
    k.write('etc/managed-settings.d/50-more.json', settings({ deny: ['Bash(ls)'] }))
    expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('DENIED')
    expect(k.ctx.bail('permissions/rules')!.files).toContain(join(dir, '50-more.json'))
    // renamed to a hidden name, then removed: each change of the listing applies to the next call
    renameSync(join(dir, '50-more.json'), join(dir, '.50-more.json'))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    renameSync(join(dir, '.50-more.json'), join(dir, '60-back.json'))
    expect((await k.call('bash', { command: 'ls' })).error?.code).toBe('DENIED')
    rmSync(join(dir, '60-back.json'))
    expect((await k.call('bash', { command: 'ls' })).isError).toBe(false)
    expect(k.ctx.bail('permissions/rules')!.files).toEqual(withDropIns(join(k.dir, base)))
  })

  it('a bad fragment is refused naming it; a drop-in path that cannot be listed is refused; only managed-settings.json has drop-ins', async () => {
    k = await permissionsKernel({
      [base]: settings({ allow: ['Bash(make)'] }),
      'etc/managed-settings.d/20-bad.json': settings({ deny: ['Bash(rm'] }),
      'other/managed-settings.json': settings({}),
      'other/settings.json': settings({}),
      'other/settings.d/x.json': settings({ deny: ['Bash(rm'] }),
    })
    await expect(k.plug({ settingsFiles: [base] })).rejects.toThrow(`${join(k.dir, 'etc/managed-settings.d/20-bad.json')}: permissions.deny[0]`)
    // a managed-settings.d that is a file, not a directory: administrator policy we cannot read
    writeFileSync(join(k.dir, 'other/managed-settings.d'), 'not a directory')
    await expect(k.plug({ settingsFiles: ['other/managed-settings.json'] })).rejects.toThrow(/managed-settings\.d: the managed settings drop-in directory cannot be read/)
    expect(withDropIns(join(k.dir, 'other/settings.json'))).toEqual([join(k.dir, 'other/settings.json')])
    mkdirSync(join(k.dir, 'empty'))
    expect(dropInFiles(join(k.dir, 'empty'))).toEqual([])
    expect(dropInFiles(join(k.dir, 'absent'))).toEqual([])
  })
})
