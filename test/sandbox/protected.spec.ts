// Protected paths: the snapshot before a call and the restore after it, and
// the lookup the in-process tools use.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { PROTECTED_NAMES, protectedEntryOf, restoreProtected, snapshotProtected } from '@dsh/sandbox'

const temps: string[] = []
function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-protected-')))
  temps.push(d)
  return d
}
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('protected paths', () => {
  it('the names are .git, .dsh, .claude, .codex and .mcp.json', () => {
    expect(PROTECTED_NAMES).toEqual(['.git', '.dsh', '.claude', '.codex', '.mcp.json'])
  })

  it('restore removes what was absent before, leaves what existed, and reports each change', () => {
    const ws = tmp()
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(path.join(ws, '.git', 'config'), 'keep')
    const before = snapshotProtected([ws])
    expect(before.map((e) => e.kind)).toEqual(['directory', 'absent', 'absent', 'absent', 'absent'])
    fs.mkdirSync(path.join(ws, '.claude'))
    fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), '{"hooks":{}}')
    fs.writeFileSync(path.join(ws, '.mcp.json'), '{}')
    fs.writeFileSync(path.join(ws, '.git', 'config'), 'changed') // an existing one is the backend's job
    expect(restoreProtected(before).sort()).toEqual([path.join(ws, '.claude'), path.join(ws, '.mcp.json')])
    expect(fs.readdirSync(ws)).toEqual(['.git'])
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('changed')
    expect(restoreProtected(before)).toEqual([]) // nothing left to undo
  })

  it('removing a planted symlink never follows it', () => {
    const [ws, outside] = [tmp(), tmp()]
    fs.writeFileSync(path.join(outside, 'precious'), 'x')
    const before = snapshotProtected([ws])
    fs.symlinkSync(outside, path.join(ws, '.dsh'))
    expect(restoreProtected(before)).toEqual([path.join(ws, '.dsh')])
    expect(fs.existsSync(path.join(ws, '.dsh'))).toBe(false)
    expect(fs.readFileSync(path.join(outside, 'precious'), 'utf8')).toBe('x')
  })

  it('a protected symlink that was replaced or retargeted is put back', () => {
    const [ws, target] = [tmp(), tmp()]
    fs.symlinkSync(target, path.join(ws, '.codex'))
    const before = snapshotProtected([ws])
    fs.unlinkSync(path.join(ws, '.codex'))
    fs.mkdirSync(path.join(ws, '.codex'))
    fs.writeFileSync(path.join(ws, '.codex', 'config.toml'), 'evil')
    expect(restoreProtected(before)).toEqual([path.join(ws, '.codex')])
    expect(fs.readlinkSync(path.join(ws, '.codex'))).toBe(target)
    fs.unlinkSync(path.join(ws, '.codex'))
    fs.symlinkSync('/etc', path.join(ws, '.codex'))
    expect(restoreProtected(before)).toEqual([path.join(ws, '.codex')])
    expect(fs.readlinkSync(path.join(ws, '.codex'))).toBe(target)
  })

  it('protectedEntryOf finds the entry a real path is in, for every root, and nothing else', () => {
    const roots = ['/w', '/x/y']
    expect(protectedEntryOf(roots, '/w/.git/hooks/pre-commit')).toBe('/w/.git')
    expect(protectedEntryOf(roots, '/w/.mcp.json')).toBe('/w/.mcp.json')
    expect(protectedEntryOf(roots, '/x/y/.claude')).toBe('/x/y/.claude')
    expect(protectedEntryOf(roots, '/w')).toBeUndefined()
    expect(protectedEntryOf(roots, '/w/src/.git/config')).toBeUndefined() // only at the top of a root
    expect(protectedEntryOf(roots, '/w/.github/workflows')).toBeUndefined()
    expect(protectedEntryOf(roots, '/elsewhere/.git')).toBeUndefined()
    expect(protectedEntryOf(roots, '/w/..git')).toBeUndefined()
  })
})
