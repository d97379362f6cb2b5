// grep and glob against hostile input: a catastrophic regex, `..` and
// absolute paths outside the area read may see, symbolic links out of the
// workspace (never followed), a tree of 20,000 files (the walk stops at its
// file cap and its deadline, the output stays capped), and the caller's
// abort. Whatever is refused stays unread, and nothing on disk changes.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { outsideDir, setup, teardown, text } from './helpers.js'

afterEach(teardown)

const SECRET = 'SECRET-7f3a'

function snapshot(dir: string): string {
  const lines: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      const st = fs.lstatSync(p)
      lines.push(`${path.relative(dir, p)} ${st.mode} ${st.size} ${st.mtimeMs}`)
      if (e.isDirectory()) walk(p)
    }
  }
  walk(dir)
  return lines.join('\n')
}

/** A workspace with links out of it, and a secret outside. */
async function hostile() {
  const s = await setup()
  fs.writeFileSync(path.join(s.out, 'secret.txt'), `${SECRET}\n`)
  fs.mkdirSync(path.join(s.out, 'dir'))
  fs.writeFileSync(path.join(s.out, 'dir', 'inner.txt'), `${SECRET}\n`)
  fs.writeFileSync(path.join(s.ws, 'ok.txt'), 'plain\n')
  fs.symlinkSync(path.join(s.out, 'secret.txt'), path.join(s.ws, 'file-link'))
  fs.symlinkSync(path.join(s.out, 'dir'), path.join(s.ws, 'dir-link'))
  fs.symlinkSync(s.out, path.join(s.ws, 'sub-link'))
  return { ...s, before: snapshot(s.out), wsBefore: snapshot(s.ws) }
}

describe('the area read may see', () => {
  it('symbolic links out of the workspace are not followed by the walk: the secret stays unread', async () => {
    const { k, ws, out, before } = await hostile()
    for (const args of [{ pattern: SECRET }, { pattern: SECRET, output_mode: 'content' }, { pattern: '.', output_mode: 'count' }]) {
      const r = await k.call('grep', args)
      expect(r.isError).toBe(false)
      expect(text(r)).not.toContain(SECRET)
      expect(text(r)).not.toMatch(/secret|inner|link/)
    }
    const listed = text(await k.call('glob', { pattern: '**/*' }))
    expect(listed).toBe('ok.txt')
    expect(snapshot(out)).toBe(before)
    expect(fs.readdirSync(ws).filter((name) => name !== '.dsh').sort()).toEqual(['dir-link', 'file-link', 'ok.txt', 'sub-link'])
  })

  it('a path or pattern naming a link out, `..`, or an absolute path outside is refused', async () => {
    const { k, out, before, ws, wsBefore } = await hostile()
    const refused: Array<[string, object, RegExp]> = [
      ['grep', { pattern: SECRET, path: 'dir-link' }, /outside the workspace/],
      ['grep', { pattern: SECRET, path: 'file-link' }, /outside the workspace/],
      ['grep', { pattern: SECRET, path: '../' }, /outside the workspace/],
      ['grep', { pattern: SECRET, path: path.relative(ws, out) }, /outside the workspace/],
      ['grep', { pattern: SECRET, path: `${ws}/../../${path.relative(path.dirname(path.dirname(ws)), out)}` }, /outside the workspace/],
      ['grep', { pattern: SECRET, path: out }, /outside the workspace/],
      ['grep', { pattern: 'root', path: '/etc' }, /outside the workspace/],
      ['glob', { pattern: '*', path: 'sub-link' }, /outside the workspace/],
      ['glob', { pattern: 'dir-link/**' }, /outside the workspace/],
      ['glob', { pattern: `${out}/**/*.txt` }, /outside the workspace/],
      ['glob', { pattern: '/etc/*' }, /outside the workspace/],
      ['glob', { pattern: '../**/*' }, /has a "\.\." segment/],
      ['glob', { pattern: 'a/../../*' }, /has a "\.\." segment/],
    ]
    for (const [tool, args, reason] of refused) {
      const r = await k.call(tool, args)
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true)
      expect(r.error?.message).toMatch(reason)
      expect(text(r)).not.toContain(SECRET)
    }
    expect(snapshot(out)).toBe(before)
    expect(snapshot(ws).split('\n').filter((l) => !l.startsWith('.dsh')).join('\n')).toBe(wsBefore.split('\n').filter((l) => !l.startsWith('.dsh')).join('\n'))
  })

  it('the twin: a directory outside made readable by readableRoots is searched', async () => {
    const notes = outsideDir()
    fs.writeFileSync(path.join(notes, 'notes.txt'), `${SECRET}\n`)
    const { k } = await setup({ config: { readableRoots: [notes] } })
    const r = await k.call('grep', { pattern: SECRET, path: notes })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe(path.join(notes, 'notes.txt'))
  })
})

describe('bounded work', () => {
  it('a catastrophic pattern for a backtracking engine runs in linear time', async () => {
    const { k, ws } = await setup()
    // (a+)+$ against a long run of a's ending in ! takes a backtracking engine 2^n steps
    fs.writeFileSync(path.join(ws, 'evil.txt'), `${'a'.repeat(50_000)}!\n`.repeat(20))
    const started = performance.now()
    for (const pattern of ['(a+)+$', '(a|aa)+$', '(a*)*b', '(?:a|a)+$']) {
      const r = await k.call('grep', { pattern, output_mode: 'count' })
      expect(r.isError).toBe(false)
      expect(text(r)).toBe('No matches found')
    }
    // a backtracking engine would not finish one of these in the lifetime of the machine
    expect(performance.now() - started).toBeLessThan(30_000)
  })

  describe('a tree of 20,000 files', () => {
    // made once (outside the per-test workspaces, in memory where the machine has /dev/shm:
    // 20,000 files on a loaded disk take half a minute) and searched as a readable root
    let root: string
    beforeAll(() => {
      const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir()
      root = fs.realpathSync(fs.mkdtempSync(path.join(base, 'dsh-wt-tree-')))
      for (let d = 0; d < 100; d++) {
        const dir = path.join(root, `d${String(d).padStart(3, '0')}`)
        fs.mkdirSync(dir)
        for (let f = 0; f < 200; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), `line with hit ${d}/${f}\n`)
      }
    }, 60_000)
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

    it('the file cap stops the walk and says the results are incomplete; the output stays capped', async () => {
      const { k } = await setup({ config: { maxSearchFiles: 3000, maxOutputBytes: 4096, readableRoots: [root] } })
      const r = await k.call('grep', { pattern: 'hit', path: root, output_mode: 'content', head_limit: 0 })
      expect(r.isError).toBe(false)
      expect(r.value).toMatchObject({ filesSearched: 3000, truncated: true })
      const body = text(r).split('\n').filter((l) => !l.startsWith('['))
      expect(Buffer.byteLength(body.join('\n'))).toBeLessThanOrEqual(4096)
      expect(text(r)).toContain('[the search stopped after 3000 files')
      const g = await k.call('glob', { pattern: '**/*.txt', path: root })
      const listed = text(g).split('\n').filter((l) => l.endsWith('.txt'))
      // at most 100 entries, and no more than the 4096-byte cap
      expect(listed.length).toBeGreaterThan(50)
      expect(listed.length).toBeLessThanOrEqual(100)
      expect(Buffer.byteLength(listed.join('\n'))).toBeLessThanOrEqual(4096)
      expect(text(g)).toContain('[the search stopped after 3000 files')
    }, 60_000)

    it('the deadline stops the walk, and the call returns what it found, marked incomplete', async () => {
      const { k } = await setup({ config: { searchTimeoutMs: 50, readableRoots: [root] } })
      const started = performance.now()
      const r = await k.call('grep', { pattern: 'hit', path: root })
      const elapsed = performance.now() - started
      expect(r.isError).toBe(false)
      expect(text(r)).toContain('[the search stopped at its 50 ms limit')
      expect((r.value as any).filesSearched).toBeLessThan(20_000)
      // bounded: the walk checks its deadline between entries (slack for a loaded machine)
      expect(elapsed).toBeLessThan(5_000)
    })

    it('the caller\'s abort stops the walk: ABORTED, and nothing changed', async () => {
      const { k } = await setup({ config: { readableRoots: [root] } })
      const before = snapshot(root)
      const abort = new AbortController()
      setTimeout(() => abort.abort(new Error('stop')), 20)
      const r = await k.call('grep', { pattern: 'hit', path: root, output_mode: 'content' }, { signal: abort.signal })
      expect(r.error?.code).toBe('ABORTED')
      expect(snapshot(root)).toBe(before)
    })
  })
})

describe('names that are not valid UTF-8', () => {
  it('grep and glob say they skipped them and mark the result truncated, never "No files found" alone', async () => {
    const { k, ws } = await setup()
    const dir = Buffer.from(ws)
    // Latin-1 "café" (0xe9 alone is not UTF-8), a file inside a directory so named, and a control file
    fs.writeFileSync(Buffer.concat([dir, Buffer.from('/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]), 'NEEDLE in latin1 name\n')
    fs.mkdirSync(Buffer.concat([dir, Buffer.from('/d'), Buffer.from([0xff])]))
    fs.writeFileSync(Buffer.concat([dir, Buffer.from('/d'), Buffer.from([0xff]), Buffer.from('/inner.txt')]), 'NEEDLE inside\n')
    fs.writeFileSync(path.join(ws, 'plain.txt'), 'no match here\n')
    const g = await k.call('grep', { pattern: 'NEEDLE' })
    expect(g.error).toBeUndefined()
    expect(text(g)).toMatch(/2 entries whose names are not valid UTF-8 were skipped: results are incomplete/)
    expect((g.value as any).truncated).toBe(true)
    const files = await k.call('glob', { pattern: '**/*.txt' })
    expect(text(files)).toContain('plain.txt')
    expect(text(files)).toMatch(/2 entries whose names are not valid UTF-8 were skipped/)
    expect((files.value as any).truncated).toBe(true)
    // a tree of valid names says nothing of the kind
    fs.rmSync(Buffer.concat([dir, Buffer.from('/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]))
    fs.rmSync(Buffer.concat([dir, Buffer.from('/d'), Buffer.from([0xff])]), { recursive: true })
    const clean = await k.call('glob', { pattern: '**/*.txt' })
    expect(text(clean)).not.toMatch(/not valid UTF-8/)
    expect((clean.value as any).truncated).toBe(false)
  })
})
