// The way from a writable root to a protected entry, checked when the lease is
// given back: a link or file left in an ancestor's place (what a command under
// Landlock alone can do: `mv sub subX; ln -s evil sub`) is removed, never
// followed, and nothing is put back beneath it; an ancestor moved away is not
// made again. Real files, the real ledger (under a private temp dir).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ancestorsBelowRoot, clearAncestors, leaseProtected, newBudget, reclaimProtected, snapshotEntry } from '@dsh/sandbox'
import { usePrivateTmpdir } from '../private-tmpdir.js'
import { tempDirs } from '../temp-dirs.js'

usePrivateTmpdir('dsh-ancestors-tmp-')
const temps = tempDirs()
const tmp = () => temps.make('dsh-ancestors-')
afterEach(() => temps.removeAll())

/** A root with a nested repository's .git at sub/.git, its hooks and config. */
function nested(): string {
  const ws = tmp()
  fs.mkdirSync(path.join(ws, 'sub/.git/hooks'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'sub/.git/config'), '[core]\n')
  return ws
}

describe('the way to a protected entry', () => {
  it('lists the directories strictly between the deepest root and the entry, shallowest first', () => {
    const ws = tmp()
    const inner = path.join(ws, 'a/inner')
    expect(ancestorsBelowRoot(path.join(ws, 'a/b/c/.git'), [ws])).toEqual(['a', 'a/b', 'a/b/c'].map((d) => path.join(ws, d)))
    expect(ancestorsBelowRoot(path.join(ws, '.git'), [ws])).toEqual([])
    expect(ancestorsBelowRoot(path.join(inner, 'x/.envrc'), [ws, inner])).toEqual([path.join(inner, 'x')])
    expect(ancestorsBelowRoot('/elsewhere/.git', [ws])).toEqual([])
  })

  it('an ancestor swapped for a link to a planted copy: the link is removed, nothing is written through it, and the release says so', () => {
    const ws = nested()
    const git = path.join(ws, 'sub/.git')
    const lease = leaseProtected([git], [ws], [path.join(git, 'hooks'), path.join(git, 'config')])
    // the command: the repository moved away, a planted copy linked in its place
    fs.renameSync(path.join(ws, 'sub'), path.join(ws, 'subX'))
    fs.cpSync(path.join(ws, 'subX'), path.join(ws, 'evil'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'evil/.git/hooks/pre-commit'), 'planted')
    fs.writeFileSync(path.join(ws, 'evil/.git/config'), '[core]\n\tfsmonitor = planted\n')
    fs.symlinkSync(path.join(ws, 'evil'), path.join(ws, 'sub'))
    const changed = lease.release()
    expect(fs.lstatSync(path.join(ws, 'sub'), { throwIfNoEntry: false })).toBeUndefined()
    expect(changed).toEqual(expect.arrayContaining([path.join(ws, 'sub'), git]))
    // nothing was put back into the planted copy through the link, nor taken out of it
    expect(fs.readFileSync(path.join(ws, 'evil/.git/hooks/pre-commit'), 'utf8')).toBe('planted')
    expect(fs.readFileSync(path.join(ws, 'subX/.git/config'), 'utf8')).toBe('[core]\n')
  })

  it('an ancestor moved away: nothing is made in its place; one replaced by a directory: the entries are put back into it', () => {
    const ws = nested()
    const git = path.join(ws, 'sub/.git')
    const config = path.join(git, 'config')
    let lease = leaseProtected([git], [ws], [config])
    fs.renameSync(path.join(ws, 'sub'), path.join(ws, 'subX'))
    expect(lease.release()).toEqual(expect.arrayContaining([git, config]))
    expect(fs.existsSync(path.join(ws, 'sub'))).toBe(false)

    fs.renameSync(path.join(ws, 'subX'), path.join(ws, 'sub'))
    lease = leaseProtected([git], [ws], [config])
    fs.renameSync(path.join(ws, 'sub'), path.join(ws, 'subX'))
    fs.cpSync(path.join(ws, 'subX'), path.join(ws, 'sub'), { recursive: true })
    fs.writeFileSync(config, '[core]\n\tfsmonitor = planted\n')
    expect(lease.release()).toEqual([config])
    expect(fs.readFileSync(config, 'utf8')).toBe('[core]\n')
  })

  it('a file in an ancestor\'s place is removed; an intact way is left alone', () => {
    const ws = nested()
    const entry = path.join(ws, 'sub/.git/config')
    expect(clearAncestors(entry, [ws])).toEqual({ intact: true, removed: [] })
    expect(snapshotEntry(entry, newBudget())).toBeDefined()
    fs.rmSync(path.join(ws, 'sub'), { recursive: true })
    fs.writeFileSync(path.join(ws, 'sub'), 'x')
    expect(clearAncestors(entry, [ws])).toEqual({ intact: false, removed: [path.join(ws, 'sub')] })
    expect(fs.existsSync(path.join(ws, 'sub'))).toBe(false)
  })

  it('a holder killed before giving the lease back: the next call finds the link in the ancestor\'s place and removes it', () => {
    const ws = nested()
    const git = path.join(ws, 'sub/.git')
    const lib = path.resolve(import.meta.dirname, '../../core/sandbox/lib/index.js')
    const j = JSON.stringify
    // a real process takes the lease, its "command" links a planted copy in place of sub, and it is killed
    const script = [
      `import { leaseProtected } from ${j(lib)}; import fs from 'node:fs'`,
      `leaseProtected([${j(git)}], [${j(ws)}], [${j(path.join(git, 'hooks'))}, ${j(path.join(git, 'config'))}])`,
      `fs.renameSync(${j(path.join(ws, 'sub'))}, ${j(path.join(ws, 'subX'))}); fs.cpSync(${j(path.join(ws, 'subX'))}, ${j(path.join(ws, 'evil'))}, { recursive: true })`,
      `fs.writeFileSync(${j(path.join(ws, 'evil/.git/hooks/pre-commit'))}, 'planted'); fs.symlinkSync(${j(path.join(ws, 'evil'))}, ${j(path.join(ws, 'sub'))})`,
      `process.kill(process.pid, 'SIGKILL')`,
    ].join('; ')
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(child.signal, child.stderr).toBe('SIGKILL')
    expect(fs.lstatSync(path.join(ws, 'sub')).isSymbolicLink()).toBe(true)
    const reclaimed = reclaimProtected([git, path.join(git, 'hooks'), path.join(git, 'config')], [ws])
    expect(reclaimed.map((r) => r.path)).toContain(path.join(ws, 'sub'))
    expect(fs.lstatSync(path.join(ws, 'sub'), { throwIfNoEntry: false })).toBeUndefined()
    expect(fs.readFileSync(path.join(ws, 'evil/.git/hooks/pre-commit'), 'utf8')).toBe('planted')
  })
})
