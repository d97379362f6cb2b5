// Protected paths: the snapshot before a call and the restore after it, and
// the lookup the in-process tools use.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CORE_PROTECTED, DEFAULT_PROTECTED_PATHS, gitdirOf, ledgerDir, leaseProtected, linkedTargets, PROTECTED_NAMES, protectedEntryOf, protectedPathsOf, protectedStamp, readProtected, restoreProtected, scanProtected, snapshotProtected, unrestoredFile } from '@dsh/sandbox'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { dirsUnder, settled } from './settled.js'
import { tempDirs } from '../temp-dirs.js'

// the stamp test reads the ledger's directory time: no other test file may touch this file's ledger
usePrivateTmpdir('dsh-protected-tmp-')
const temps = tempDirs()
const tmp = () => temps.make('dsh-protected-')
afterEach(() => temps.removeAll())

describe('protected paths', () => {
  it('the core names are .git, .dsh, .claude, .codex and .mcp.json; the default adds the start-up files and editor directories', () => {
    expect(CORE_PROTECTED).toEqual(['.git', '.dsh', '.claude', '.codex', '.mcp.json'])
    expect(PROTECTED_NAMES).toEqual([...CORE_PROTECTED, ...DEFAULT_PROTECTED_PATHS])
    for (const name of ['.bashrc', '.zshrc', '.profile', '.gitconfig', '.gitmodules', '.vscode', '.idea', '.envrc', '.husky', '.npmrc']) expect(DEFAULT_PROTECTED_PATHS).toContain(name)
  })

  it('restore removes what was absent before, leaves what existed, and reports each change', () => {
    const ws = tmp()
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(path.join(ws, '.git', 'config'), 'keep')
    const before = snapshotProtected([ws], CORE_PROTECTED)
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
    expect(protectedEntryOf(roots, '/w/src/.git/config')).toBe('/w/src/.git') // a nested repository, to 3 levels down
    expect(protectedEntryOf(roots, '/w/a/b/c/.envrc')).toBe('/w/a/b/c/.envrc')
    expect(protectedEntryOf(roots, '/w/a/b/c/d/.envrc')).toBeUndefined() // deeper than PROTECTED_DEPTH
    expect(protectedEntryOf(roots, '/w/.vscode/settings.json')).toBe('/w/.vscode')
    expect(protectedEntryOf(roots, '/w/src/.git/config', CORE_PROTECTED.filter((n) => n !== '.git'))).toBeUndefined()
    expect(protectedEntryOf(roots, '/w/.github/workflows')).toBeUndefined()
    expect(protectedEntryOf(roots, '/elsewhere/.git')).toBeUndefined()
    expect(protectedEntryOf(roots, '/w/..git')).toBeUndefined()
  })
})

describe('the scan below the top, kept between calls', () => {
  it('is scanned again after anything it saw changes: an entry created, a directory moved into range, one swapped for a link, a nested name appearing', async () => {
    const ws = tmp()
    fs.mkdirSync(path.join(ws, 'pkg/deep/er/still'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'pkg/deep/er/still/.envrc'), '') // four levels down: out of range
    const names = [...PROTECTED_NAMES, '.github/workflows']
    const scan = () => [...scanProtected([ws], names).deep].sort()
    // Why wait: a listing of a directory changed in the last two seconds is never kept (coarse file times)
    await settled(dirsUnder(ws))
    expect(scan()).toEqual([])
    expect(scan()).toEqual([])
    fs.writeFileSync(path.join(ws, 'pkg/.envrc'), '')
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc')])
    fs.renameSync(path.join(ws, 'pkg/deep/er/still'), path.join(ws, 'pkg/still'))
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc'), path.join(ws, 'pkg/still/.envrc')])
    await settled(dirsUnder(ws))
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc'), path.join(ws, 'pkg/still/.envrc')])
    fs.mkdirSync(path.join(ws, 'pkg/.github'))
    await settled(dirsUnder(ws))
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc'), path.join(ws, 'pkg/still/.envrc')])
    fs.mkdirSync(path.join(ws, 'pkg/.github/workflows')) // only pkg/.github changes
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc'), path.join(ws, 'pkg/.github/workflows'), path.join(ws, 'pkg/still/.envrc')])
    fs.rmSync(path.join(ws, 'pkg/still'), { recursive: true })
    fs.symlinkSync('/etc', path.join(ws, 'pkg/still'))
    expect(scan()).toEqual([path.join(ws, 'pkg/.envrc'), path.join(ws, 'pkg/.github/workflows')])
  })
})

describe('what protected entries lead to', () => {
  it('a protected symlink leads to its target, a .git file to its gitdir and commondir, each only inside the roots', () => {
    const [ws, outside] = [tmp(), tmp()]
    fs.mkdirSync(path.join(ws, 'decoy'))
    fs.symlinkSync('decoy', path.join(ws, '.codex'))
    fs.symlinkSync(outside, path.join(ws, '.claude'))
    fs.symlinkSync('not-yet/there', path.join(ws, '.dsh'))
    fs.mkdirSync(path.join(ws, 'wt/realgit'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'wt/realgit/commondir'), '../../main.git\n')
    fs.writeFileSync(path.join(ws, '.git'), 'gitdir: wt/realgit\n')
    expect(linkedTargets(path.join(ws, '.codex'), [ws])).toEqual([path.join(ws, 'decoy')])
    expect(linkedTargets(path.join(ws, '.claude'), [ws])).toEqual([]) // outside: read-only anyway
    expect(linkedTargets(path.join(ws, '.dsh'), [ws])).toEqual([path.join(ws, 'not-yet/there')])
    expect(linkedTargets(path.join(ws, '.git'), [ws])).toEqual([path.join(ws, 'wt/realgit'), path.join(ws, 'main.git')])
    expect(gitdirOf(path.join(ws, '.git'))).toBe(path.join(ws, 'wt/realgit'))
    expect(protectedEntryOf([ws], path.join(ws, 'decoy/config.toml'))).toBe(path.join(ws, 'decoy'))
    expect(protectedEntryOf([ws], path.join(ws, 'wt/realgit/hooks/pre-commit'))).toBe(path.join(ws, 'wt/realgit'))
    expect(protectedEntryOf([ws], path.join(ws, 'wt/other'))).toBeUndefined()
    const snapshot = Object.fromEntries(snapshotProtected([ws]).map((e) => [path.relative(ws, e.path), e.kind]))
    expect(snapshot).toMatchObject({ decoy: 'directory', 'not-yet/there': 'absent', 'wt/realgit': 'directory', 'main.git': 'absent', '.git': 'file' })
  })

  it('a protected symlink that leads to a writable root is refused, naming both', () => {
    const ws = tmp()
    fs.symlinkSync(ws, path.join(ws, '.mcp.json'))
    expect(() => protectedPathsOf([ws])).toThrow(expect.objectContaining({ code: 'INVALID_POLICY', message: expect.stringContaining(`${path.join(ws, '.mcp.json')} leads to the writable root ${ws}`) }))
  })
})

describe('the ledger of protected entries in use', () => {
  it('an overlapping lease inherits the first record; only the last release restores', () => {
    const ws = tmp()
    const entry = path.join(ws, '.git')
    const a = leaseProtected([entry], [ws])
    expect(a.entries[0].kind).toBe('absent')
    fs.mkdirSync(entry) // made during A
    const b = leaseProtected([entry], [ws])
    expect(b.entries[0].kind).toBe('absent') // not what B sees now
    expect(a.release()).toEqual([])
    expect(fs.existsSync(entry)).toBe(true)
    expect(b.release()).toEqual([entry])
    expect(fs.existsSync(entry)).toBe(false)
    expect(b.release()).toEqual([]) // once
    const c = leaseProtected([entry], [ws]) // a fresh record after the last release
    fs.mkdirSync(entry)
    expect(c.release()).toEqual([entry])
  })

  it('a lease held by a process that died does not count: the next lease puts back what its record says, keeping what is there beside it', () => {
    const ws = tmp()
    const entry = path.join(ws, '.claude')
    const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
    // another process takes the entry while it is absent, then dies without releasing it
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', `import { leaseProtected } from ${JSON.stringify(lib)}; leaseProtected([${JSON.stringify(entry)}], [${JSON.stringify(ws)}])`], { encoding: 'utf8' })
    expect(child.status, child.stderr).toBe(0)
    fs.mkdirSync(entry) // made after that process is gone: the ledger cannot tell it from what the dead call's command made
    fs.writeFileSync(path.join(entry, 'settings.json'), 'made later')
    const lease = leaseProtected([entry], [ws])
    expect(lease.entries[0].kind).toBe('absent')
    expect(lease.reclaimed).toEqual([{ path: entry, displaced: expect.stringMatching(/\.claude\.dsh-displaced-/) }])
    expect(fs.existsSync(entry)).toBe(false)
    expect(fs.readFileSync(path.join(lease.reclaimed[0].displaced!, 'settings.json'), 'utf8')).toBe('made later')
    expect(lease.release()).toEqual([])
    expect(readProtected(path.join(entry, 'settings.json'))).toEqual({ from: 'disk' })
    expect(fs.existsSync(unrestoredFile(ledgerDir(), entry))).toBe(false)
  })

  /** A workspace whose .claude/settings.json holds "old". */
  function claudeWorkspace() {
    const ws = tmp()
    const claude = path.join(ws, '.claude')
    const file = path.join(claude, 'settings.json')
    fs.mkdirSync(claude)
    fs.writeFileSync(file, 'old')
    return { ws, claude, file }
  }

  it('readProtected: while a call holds a copy the file reads from it, an absent entry reads as absent, after the release from disk', () => {
    const { ws, claude, file } = claudeWorkspace()
    const lease = leaseProtected([claude, path.join(ws, '.codex')], [ws], [claude])
    fs.writeFileSync(file, 'planted')
    fs.mkdirSync(path.join(ws, '.codex'))
    fs.writeFileSync(path.join(ws, '.codex/hooks.json'), 'planted')
    expect(readProtected(file)).toEqual({ from: 'copy', text: 'old' })
    expect(readProtected(path.join(ws, '.codex/hooks.json'))).toEqual({ from: 'copy' })
    expect(readProtected(path.join(claude, 'new.json'))).toEqual({ from: 'copy' })
    const held = protectedStamp(file)
    expect(lease.release()).toEqual([claude, path.join(ws, '.codex')])
    expect(protectedStamp(file)).not.toBe(held)
    expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
  })

  it('protectedStamp, kept while the ledger directory stands still, changes when a call takes the entry and when its holder dies', async () => {
    const { ws, claude, file } = claudeWorkspace()
    // wait (bounded) until the ledger's directory is old enough for a stamp to be kept
    await settled([ledgerDir()])
    const free = protectedStamp(file)
    expect(protectedStamp(file)).toBe(free)
    // another process takes .claude for its call and holds it
    const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `import { leaseProtected } from ${JSON.stringify(lib)}; leaseProtected([${JSON.stringify(claude)}], [${JSON.stringify(ws)}], [${JSON.stringify(claude)}]); console.log('held'); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] })
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (chunk) => String(chunk).includes('held') && resolve())
        holder.once('exit', (code) => reject(new Error(`the holder exited ${code}`)))
      })
      const held = protectedStamp(file)
      expect(held).not.toBe(free)
      expect(held).toMatch(/^h/)
      await settled([ledgerDir()])
      expect(protectedStamp(file)).toBe(held)
      // its process dies: nothing in the ledger directory changes, the stamp must still
      const gone = new Promise((r) => holder.once('exit', r))
      holder.kill('SIGKILL')
      await gone
      const dead = protectedStamp(file)
      expect(dead).not.toBe(held)
      expect(readProtected(file)).toEqual({ from: 'disk', text: 'old' })
    } finally {
      holder.kill('SIGKILL')
      fs.rmSync(unrestoredFile(ledgerDir(), claude), { force: true })
    }
  })

  it('the ledger is private to this user and never inside a writable root', () => {
    const dir = ledgerDir()
    const st = fs.statSync(dir)
    expect(st.mode & 0o077).toBe(0)
    expect(st.uid).toBe(process.getuid!())
    expect(() => ledgerDir([path.dirname(dir)])).toThrow(/lies inside the writable root/)
  })
})
