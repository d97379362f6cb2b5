// read, write, edit and ls through the real pipeline: what they do, their
// arguments (Claude Code's names), their failures, and what they declare.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setup, teardown, text } from './helpers.js'

afterEach(teardown)

describe('read', () => {
  it('numbers lines like cat -n; offset and limit pick a range; value carries the raw text', async () => {
    const { k, ws } = await setup()
    fs.writeFileSync(path.join(ws, 'f.txt'), 'one\ntwo\nthree\nfour\n')
    const all = await k.call('read', { file_path: path.join(ws, 'f.txt') })
    expect(text(all)).toBe('     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour')
    const some = await k.call('read', { file_path: 'f.txt', offset: 2, limit: 2 })
    expect(text(some)).toBe('     2\ttwo\n     3\tthree\n[1 more lines; read on with offset 4]')
    expect(some.value).toEqual({ file_path: path.join(ws, 'f.txt'), content: 'two\nthree', startLine: 2, numLines: 2, totalLines: 4, notes: ['[1 more lines; read on with offset 4]'] })
    expect(all.value).not.toHaveProperty('notes')
    expect(text(await k.call('read', { file_path: 'f.txt', offset: 9 }))).toBe('[f.txt has 4 lines; nothing at offset 9]')
  })

  it('stops at maxReadOutputBytes on a whole line and says where to read on, in the text and in the value', async () => {
    const { k, ws } = await setup({ config: { maxReadOutputBytes: 100 } })
    // 30 lines of 9 bytes and a newline: 10 fit in 100 bytes
    fs.writeFileSync(path.join(ws, 'f.txt'), Array.from({ length: 30 }, (_, i) => `line ${String(i + 1).padStart(4, '0')}`).join('\n'))
    const r = await k.call('read', { file_path: 'f.txt' })
    const note = '[20 more lines (workspace-tools maxReadOutputBytes, 100 bytes, reached); read on with offset 11]'
    expect(text(r).split('\n')).toHaveLength(11)
    expect(text(r).endsWith(`    10\tline 0010\n${note}`)).toBe(true)
    expect(r.value).toMatchObject({ startLine: 1, numLines: 10, totalLines: 30, notes: [note] })
    const on = await k.call('read', { file_path: 'f.txt', offset: 11 })
    expect(on.value).toMatchObject({ startLine: 11, numLines: 10 })
    // one line longer than the budget is still shown (cut at 2000 characters)
    fs.writeFileSync(path.join(ws, 'long.txt'), `${'y'.repeat(5000)}\nnext`)
    const long = await k.call('read', { file_path: 'long.txt' })
    expect(long.value).toMatchObject({ numLines: 1, totalLines: 2 })
    expect((long.value as { content: string }).content).toBe(`${'y'.repeat(2000)}… [line truncated]`)
    expect((long.value as { notes: string[] }).notes).toEqual(['[1 long line cut at 2000 characters]', '[1 more lines (workspace-tools maxReadOutputBytes, 100 bytes, reached); read on with offset 2]'])
  })

  it('keeps a 2000-line file of long lines under the default budget, so a client shows it inline', async () => {
    const { k, ws } = await setup()
    fs.writeFileSync(path.join(ws, 'big.txt'), Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n'))
    const r = await k.call('read', { file_path: 'big.txt' })
    const value = r.value as { numLines: number; notes: string[] }
    expect(JSON.stringify(value).length).toBeLessThan(50_000)
    expect(value.numLines).toBeGreaterThan(500)
    expect(value.notes.at(-1)).toBe(`[${5000 - value.numLines} more lines (workspace-tools maxReadOutputBytes, 40000 bytes, reached); read on with offset ${value.numLines + 1}]`)
  })

  it('refuses what it cannot show: missing, binary, too large, a directory, a FIFO (without hanging)', async () => {
    const { k, ws } = await setup({ config: { maxReadBytes: 100 } })
    fs.writeFileSync(path.join(ws, 'bin'), Buffer.from([0x7f, 0x45, 0, 1]))
    fs.writeFileSync(path.join(ws, 'big'), 'x'.repeat(101))
    fs.mkdirSync(path.join(ws, 'dir'))
    execFileSync('mkfifo', [path.join(ws, 'fifo')])
    for (const [file, message] of [
      ['missing', /missing does not exist/],
      ['bin', /bin is a binary file/],
      ['big', /big is 101 bytes, over the 100-byte limit/],
      ['dir', /EISDIR|not a regular file/],
      ['fifo', /fifo is not a regular file/],
    ] as const) {
      const r = await k.call('read', { file_path: file })
      expect(r.isError, file).toBe(true)
      expect(r.error!.code).toBe('TOOL_FAILED')
      expect(r.error!.message).toMatch(message)
    }
  })

  it('argument errors are INVALID_ARGS before the body runs', async () => {
    const { k } = await setup()
    for (const args of [{}, { file_path: 1 }, { file_path: 'a', offset: 0 }, { file_path: 'a', limit: 1.5 }, { file_path: 'a', extra: true }, { path: 'a' }]) {
      expect((await k.call('read', args)).error?.code, JSON.stringify(args)).toBe('INVALID_ARGS')
    }
  })
})

describe('write and edit (workspace-write)', () => {
  it('write creates files and missing directories, replaces existing content, keeps the mode', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    const r = await k.call('write', { file_path: 'a/b/c.txt', content: 'hi' })
    expect(r.isError).toBe(false)
    expect(r.value).toEqual({ file_path: path.join(ws, 'a/b/c.txt'), bytes: 2, created: true })
    expect(fs.readFileSync(path.join(ws, 'a/b/c.txt'), 'utf8')).toBe('hi')
    fs.chmodSync(path.join(ws, 'a/b/c.txt'), 0o600)
    expect((await k.call('write', { file_path: path.join(ws, 'a/b/c.txt'), content: 'replaced, longer' })).value).toMatchObject({ created: false })
    expect(fs.readFileSync(path.join(ws, 'a/b/c.txt'), 'utf8')).toBe('replaced, longer')
    expect(fs.statSync(path.join(ws, 'a/b/c.txt')).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.join(ws, 'a')).mode & 0o7000).toBe(0)
  })

  it('edit replaces exactly one occurrence, or all with replace_all, and says what went wrong otherwise', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    const f = path.join(ws, 'f.ts')
    fs.writeFileSync(f, 'let a = 1\nlet b = 1\n')
    expect((await k.call('edit', { file_path: 'f.ts', old_string: 'let a', new_string: 'const a' })).value).toEqual({ file_path: f, replacements: 1 })
    const twice = await k.call('edit', { file_path: 'f.ts', old_string: '= 1', new_string: '= 2' })
    expect(twice.error?.message).toMatch(/occurs 2 times/)
    expect(fs.readFileSync(f, 'utf8')).toBe('const a = 1\nlet b = 1\n')
    expect((await k.call('edit', { file_path: 'f.ts', old_string: '= 1', new_string: '= $&2', replace_all: true })).value).toMatchObject({ replacements: 2 })
    expect(fs.readFileSync(f, 'utf8')).toBe('const a = $&2\nlet b = $&2\n') // no replacement patterns
    expect((await k.call('edit', { file_path: 'f.ts', old_string: 'nope', new_string: 'x' })).error?.message).toMatch(/not found/)
    expect((await k.call('edit', { file_path: 'f.ts', old_string: 'a', new_string: 'a' })).error?.message).toMatch(/the same/)
    expect((await k.call('edit', { file_path: 'new.ts', old_string: 'a', new_string: 'b' })).error?.message).toMatch(/does not exist; create it with write/)
    expect((await k.call('edit', { file_path: 'f.ts', old_string: '', new_string: 'b' })).error?.code).toBe('INVALID_ARGS')
  })
})

describe('ls', () => {
  it('lists entries sorted, directories with /, symlinks with their target', async () => {
    const { k, ws } = await setup()
    fs.mkdirSync(path.join(ws, 'src'))
    fs.writeFileSync(path.join(ws, 'b.txt'), '')
    fs.symlinkSync('b.txt', path.join(ws, 'a-link'))
    const r = await k.call('ls', { path: ws })
    expect(text(r)).toBe('a-link -> b.txt\nb.txt\nsrc/')
    expect(r.value).toEqual({ path: ws, entries: [{ name: 'a-link', type: 'symlink', target: 'b.txt' }, { name: 'b.txt', type: 'file' }, { name: 'src', type: 'directory' }] })
    expect(text(await k.call('ls', { path: 'src' }))).toBe('[empty directory]')
    expect((await k.call('ls', { path: 'b.txt' })).error?.message).toMatch(/ENOTDIR|not a directory/)
  })
})

describe('declarations', () => {
  it('registers the eight tools with Claude Code\'s argument names, concurrency classes and guidance', async () => {
    const { k } = await setup()
    const schemas = Object.fromEntries(k.ctx.tools.schemas().map((s) => [s.name, s.parameters]))
    expect(Object.keys(schemas).sort()).toEqual(['bash', 'edit', 'glob', 'grep', 'ls', 'read', 'web_fetch', 'write'])
    expect(Object.keys(schemas.read.properties)).toEqual(['file_path', 'offset', 'limit'])
    expect(Object.keys(schemas.write.properties)).toEqual(['file_path', 'content'])
    expect(Object.keys(schemas.edit.properties)).toEqual(['file_path', 'old_string', 'new_string', 'replace_all'])
    expect(Object.keys(schemas.ls.properties)).toEqual(['path'])
    expect(Object.keys(schemas.bash.properties)).toEqual(['command', 'timeout', 'description', 'sandbox_permissions', 'justification'])
    expect(Object.keys(schemas.grep.properties)).toEqual(['pattern', 'path', 'glob', 'type', 'output_mode', '-i', '-n', '-A', '-B', '-C', 'head_limit', 'multiline'])
    expect(Object.keys(schemas.glob.properties)).toEqual(['pattern', 'path'])
    expect(Object.keys(schemas.web_fetch.properties)).toEqual(['url', 'prompt'])
    const classes = Object.fromEntries(['read', 'ls', 'grep', 'glob', 'write', 'edit', 'bash', 'web_fetch'].map((n) => [n, k.ctx.tools.concurrency(n, {})]))
    expect(classes).toEqual({ read: 'parallel', ls: 'parallel', grep: 'parallel', glob: 'parallel', write: 'exclusive', edit: 'exclusive', bash: 'exclusive', web_fetch: 'parallel' })
    const sections = k.ctx.systemPrompt.sections().map((s) => s.id)
    for (const n of ['read', 'write', 'edit', 'ls', 'grep', 'glob', 'bash', 'web_fetch']) expect(sections).toContain(`tool:${n}`)
  })

  it('a relative workspace in the config is refused when the plugin loads', async () => {
    await expect(setup({ config: { workspace: 'relative/ws' } })).rejects.toThrow(/workspace must be an absolute path/)
  })
})
