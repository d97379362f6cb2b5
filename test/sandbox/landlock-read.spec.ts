// The Landlock carve with real files: rules are inodes, so every rule is
// carved by its real path (a link beside a denied path leading into it gets
// no rule, one leading above it is carved), and the cached carve is used only
// while what it read is unchanged. The real runs are in test/adversarial.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS, landlockReadRules, PROTECTED_NAMES, type ResolvedPolicy } from '@dsh/sandbox'

let base: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'dsh-carve-')))
})
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const policy = (ws: string, readDeny: string[], readAllow: string[] = []): ResolvedPolicy => ({ mode: 'read-only', workspace: ws, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, readDeny, readAllow, protectedPaths: PROTECTED_NAMES })
const ro = (rules: string[]) => rules.filter((_, i) => rules[i - 1] === '--ro')

describe('the Landlock carve', () => {
  it('by real path: a link into the denied path gets no rule, a link above it or a rule through a linked ancestor is carved', () => {
    const home = path.join(base, 'real/home')
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true })
    fs.writeFileSync(path.join(home, 'notes'), '')
    fs.symlinkSync('.ssh', path.join(home, 'keys'))
    fs.symlinkSync(home, path.join(home, 'again'))
    fs.symlinkSync('real', path.join(base, 'alias'))
    const denied = path.join(home, '.ssh')
    const carved = landlockReadRules(policy('/nonexistent-ws', [denied]), ['--ro', path.join(base, 'alias'), '--ro', '/usr'])
    expect(ro(carved.rules).sort()).toEqual([path.join(home, 'notes'), '/usr'].sort())
    expect(carved.hidden).toEqual([denied])
  })

  it('is kept while what it read is unchanged, and carved again when the denied path appears or its parent changes', async () => {
    const dir = path.join(base, 'cached')
    fs.mkdirSync(path.join(dir, 'a'), { recursive: true })
    fs.mkdirSync(path.join(dir, 'b'))
    const denied = path.join(dir, 'secret')
    // Why wait: a listing of a directory changed in the last two seconds is never kept (coarse file times)
    await new Promise((r) => setTimeout(r, 2100))
    const p = policy('/nonexistent-ws', [denied])
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([dir]) // nothing to carve yet
    fs.mkdirSync(denied)
    const carved = landlockReadRules(p, ['--ro', dir])
    expect(ro(carved.rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b')])
    expect(carved.hidden).toEqual([denied])
    await new Promise((r) => setTimeout(r, 2100))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b')]) // kept
    // a link planted later beside it, leading into it, must not reuse the old listing (its rule would be the denied inode's)
    fs.symlinkSync('secret', path.join(dir, 'c'))
    fs.mkdirSync(path.join(dir, 'd'))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'a'), path.join(dir, 'b'), path.join(dir, 'd')])
    // a carved entry swapped for a link into the denied path is caught by the parent's change
    fs.rmSync(path.join(dir, 'a'), { recursive: true })
    fs.symlinkSync('secret', path.join(dir, 'a'))
    expect(ro(landlockReadRules(p, ['--ro', dir]).rules)).toEqual([path.join(dir, 'b'), path.join(dir, 'd')])
  })
})
