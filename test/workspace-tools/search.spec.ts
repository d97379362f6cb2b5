// grep and glob with Claude Code's arguments: the output modes, context and
// line numbers, glob and type filters, .gitignore, newest-first order, the
// entry limits, and RE2 syntax errors that say what was wrong.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setup, teardown, text } from './helpers.js'

afterEach(teardown)

function write(ws: string, files: Record<string, string>, mtimes: Record<string, number> = {}): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(ws, rel)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    fs.writeFileSync(full, content)
  }
  for (const [rel, seconds] of Object.entries(mtimes)) fs.utimesSync(path.join(ws, rel), seconds, seconds)
}

describe('grep', () => {
  it('lists the files with a match, newest first, and skips .gitignore\'d and VCS directories', async () => {
    const { k, ws } = await setup()
    write(ws, {
      'old.ts': 'const needle = 1\n',
      'src/new.ts': 'needle()\n',
      'src/none.ts': 'nothing here\n',
      'build/out.js': 'needle\n',
      'keep/build.log': 'needle\n',
      '.gitignore': 'build/\n*.log\n',
      '.git/config': 'needle\n',
    }, { 'old.ts': 1_000_000, 'src/new.ts': 2_000_000 })
    const r = await k.call('grep', { pattern: 'needle' })
    expect(r.isError).toBe(false)
    expect(text(r)).toBe('src/new.ts\nold.ts')
    expect((r.value as any).filenames).toEqual([path.join(ws, 'src/new.ts'), path.join(ws, 'old.ts')])
  })

  it('a nested .gitignore can re-include what a parent ignored', async () => {
    const { k, ws } = await setup()
    write(ws, { '.gitignore': '*.gen\n', 'a/x.gen': 'hit\n', 'b/.gitignore': '!keep.gen\n', 'b/keep.gen': 'hit\n', 'b/drop.gen': 'hit\n' })
    expect(text(await k.call('grep', { pattern: 'hit', output_mode: 'count' }))).toBe('b/keep.gen:1')
  })

  it('content mode: path:line:text, context lines with -, groups split by --, -n false drops numbers', async () => {
    const { k, ws } = await setup()
    write(ws, { 'f.txt': 'one\nfoo two\nthree\nfour\nfive\nsix\nfoo seven\n' })
    expect(text(await k.call('grep', { pattern: 'foo', output_mode: 'content' }))).toBe('f.txt:2:foo two\nf.txt:7:foo seven')
    expect(text(await k.call('grep', { pattern: 'foo', output_mode: 'content', '-C': 1 })))
      .toBe('f.txt-1-one\nf.txt:2:foo two\nf.txt-3-three\n--\nf.txt-6-six\nf.txt:7:foo seven')
    expect(text(await k.call('grep', { pattern: 'foo', output_mode: 'content', '-A': 1, '-n': false }))).toBe('f.txt:foo two\nf.txt-three\n--\nf.txt:foo seven')
    expect(text(await k.call('grep', { pattern: 'two', output_mode: 'content', '-B': 3 }))).toBe('f.txt-1-one\nf.txt:2:foo two')
  })

  it('the value carries the lines as the text has them (clients that hand the model the structured value lose nothing)', async () => {
    const { k, ws } = await setup()
    write(ws, { 'f.txt': 'one\nfoo two\n' })
    const content = await k.call('grep', { pattern: 'foo', output_mode: 'content' })
    expect(content.value).toMatchObject({ mode: 'content', content: text(content) })
    const count = await k.call('grep', { pattern: 'foo', output_mode: 'count' })
    expect(count.value).toMatchObject({ mode: 'count', content: 'f.txt:1' })
    const files = await k.call('grep', { pattern: 'foo' })
    expect(files.value).toMatchObject({ filenames: [expect.stringMatching(/f\.txt$/)] })
    expect(files.value).not.toHaveProperty('content')
  })

  it('count mode counts matching lines per file; -i ignores case', async () => {
    const { k, ws } = await setup()
    write(ws, { 'a.txt': 'Foo\nfoo foo\nbar\n', 'b.txt': 'FOO\n' })
    expect(text(await k.call('grep', { pattern: 'foo', output_mode: 'count' }))).toBe('a.txt:1')
    const r = await k.call('grep', { pattern: 'foo', output_mode: 'count', '-i': true })
    expect(text(r)).toBe('a.txt:2\nb.txt:1')
    expect(r.value).toMatchObject({ numFiles: 2, numMatches: 3 })
  })

  it('glob and type filter the files searched, as ripgrep\'s --glob and --type', async () => {
    const { k, ws } = await setup()
    write(ws, { 'a.ts': 'x\n', 'deep/b.tsx': 'x\n', 'c.js': 'x\n', 'd.py': 'x\n', 'src/e.ts': 'x\n' })
    const files = async (args: object) => text(await k.call('grep', { pattern: 'x', output_mode: 'count', ...args }))
    expect(await files({ glob: '*.ts' })).toBe('a.ts:1\nsrc/e.ts:1')
    expect(await files({ glob: '*.{ts,tsx}' })).toBe('a.ts:1\ndeep/b.tsx:1\nsrc/e.ts:1')
    expect(await files({ glob: 'src/**/*.ts' })).toBe('src/e.ts:1')
    expect(await files({ type: 'py' })).toBe('d.py:1')
    expect(await files({ type: 'ts' })).toBe('a.ts:1\ndeep/b.tsx:1\nsrc/e.ts:1')
    const bad = await k.call('grep', { pattern: 'x', type: 'klingon' })
    expect(bad.isError).toBe(true)
    expect(bad.error?.message).toMatch(/unknown file type "klingon"; known types: .*\bpy\b/)
  })

  it('multiline lets a match span lines; without it a match stays within a line', async () => {
    const { k, ws } = await setup()
    write(ws, { 's.go': 'type T struct {\n  a int\n  field string\n}\n' })
    expect(text(await k.call('grep', { pattern: 'struct \\{.*field', output_mode: 'content' }))).toBe('No matches found')
    expect(text(await k.call('grep', { pattern: 'struct \\{.*field', output_mode: 'content', multiline: true })))
      .toBe('s.go:1:type T struct {\ns.go:2:  a int\ns.go:3:  field string')
  })

  it('head_limit cuts the list and says how much more there is', async () => {
    const { k, ws } = await setup()
    write(ws, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'hit\n'])))
    const r = await k.call('grep', { pattern: 'hit', output_mode: 'count', head_limit: 5 })
    expect(text(r).split('\n').slice(0, 5)).toEqual(['f00.txt:1', 'f01.txt:1', 'f02.txt:1', 'f03.txt:1', 'f04.txt:1'])
    expect(text(r)).toContain('[25 more counts not shown')
    expect(r.value).toMatchObject({ shown: 5, truncated: true })
  })

  it('a path to one file searches that file; binary files and files over maxReadBytes are not searched', async () => {
    const { k, ws } = await setup({ config: { maxReadBytes: 100 } })
    write(ws, { 'one.txt': 'hit\n', 'two.txt': 'hit\n', 'big.txt': `hit\n${'x'.repeat(200)}` })
    fs.writeFileSync(path.join(ws, 'bin.dat'), Buffer.from('hit\0\x01\x02'))
    expect(text(await k.call('grep', { pattern: 'hit', path: 'one.txt' }))).toBe('one.txt')
    const all = text(await k.call('grep', { pattern: 'hit' }))
    expect(all.split('\n').filter((l) => !l.startsWith('['))).toEqual(expect.arrayContaining(['one.txt', 'two.txt']))
    expect(all).not.toMatch(/bin\.dat|big\.txt\n/)
    expect(all).toContain('[1 files over 100 bytes were not searched]')
  })

  it('a pattern RE2 cannot parse is an error naming the pattern', async () => {
    const { k } = await setup()
    for (const pattern of ['(unclosed', '(?=lookahead)', '(a)\\1']) {
      const r = await k.call('grep', { pattern })
      expect(r.isError).toBe(true)
      expect(r.error?.message).toContain(`pattern ${JSON.stringify(pattern)} is not a valid regular expression`)
    }
  })

  it('the kernel\'s own data directory is not searched', async () => {
    const { k, ws } = await setup()
    write(ws, { 'a.txt': 'marker-42\n' })
    await k.call('read', { file_path: 'a.txt' })
    // the session log under .dsh now holds "marker-42" too
    expect(text(await k.call('grep', { pattern: 'marker-42' }))).toBe('a.txt')
  })
})

describe('glob', () => {
  it('matches paths relative to path, newest first; * stays in one directory, ** crosses them', async () => {
    const { k, ws } = await setup()
    write(ws, { 'a.ts': '', 'src/b.ts': '', 'src/deep/c.ts': '', 'd.js': '', '.hidden.ts': '', 'ignored/e.ts': '', '.gitignore': 'ignored/\n' },
      { 'a.ts': 1_000_000, 'src/b.ts': 3_000_000, 'src/deep/c.ts': 2_000_000, '.hidden.ts': 500_000 })
    expect(text(await k.call('glob', { pattern: '*.ts' }))).toBe('a.ts\n.hidden.ts')
    expect(text(await k.call('glob', { pattern: '**/*.ts' }))).toBe('src/b.ts\nsrc/deep/c.ts\na.ts\n.hidden.ts')
    expect(text(await k.call('glob', { pattern: '*.ts', path: 'src' }))).toBe('src/b.ts')
    expect(text(await k.call('glob', { pattern: 'src/**/*.{ts,js}' }))).toBe('src/b.ts\nsrc/deep/c.ts')
    expect(text(await k.call('glob', { pattern: `${ws}/src/*.ts` }))).toBe('src/b.ts')
    expect(text(await k.call('glob', { pattern: '*.rs' }))).toBe('No files found')
  })

  it('at most 100 files, with a note', async () => {
    const { k, ws } = await setup()
    write(ws, Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`f${i}.txt`, ''])))
    const r = await k.call('glob', { pattern: '*.txt' })
    expect(text(r).split('\n').filter((l) => l.endsWith('.txt'))).toHaveLength(100)
    expect(text(r)).toContain('[20 more files not shown')
    expect(r.value).toMatchObject({ numFiles: 120, truncated: true })
  })

  it('a path that is a file, or missing, is refused', async () => {
    const { k, ws } = await setup()
    write(ws, { 'f.txt': '' })
    expect((await k.call('glob', { pattern: '*', path: 'f.txt' })).error?.message).toMatch(/is not a directory/)
    expect((await k.call('glob', { pattern: '*', path: 'nope' })).error?.message).toMatch(/nope does not exist/)
  })
})
