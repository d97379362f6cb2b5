// The file tools enforce the sandbox policy in process: the mode that
// applies to the call, real paths inside the writable roots, no symlink or
// `..` escape, no write through a hard-linked file, protected paths refused,
// and no race between the check and the open. Each refusal also checks that
// nothing changed on disk.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openChecked, resolveTarget } from '@dsh/workspace-tools'
import { setup, teardown, text, tmp } from './helpers.js'

afterEach(teardown)

function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isSymbolicLink()) out[path.relative(dir, p)] = `-> ${fs.readlinkSync(p)}`
      else if (e.isDirectory()) walk(p)
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8')
    }
  }
  walk(dir)
  return out
}

describe('the mode of the call', () => {
  it('read-only (the default): write and edit change nothing; read and ls work', async () => {
    const { k, ws } = await setup()
    fs.writeFileSync(path.join(ws, 'f'), 'keep')
    const before = snapshotDir(ws)
    const w = await k.call('write', { file_path: 'f', content: 'pwned' })
    // refused before the body, with the way to allow it (not TOOL_FAILED from inside the tool)
    expect(w.error?.code).toBe('DENIED')
    expect(w.error?.message).toMatch(/write needs the sandbox mode workspace-write .* would run under read-only/)
    expect((await k.call('write', { file_path: 'new/file', content: 'x' })).isError).toBe(true)
    expect((await k.call('edit', { file_path: 'f', old_string: 'keep', new_string: 'pwned' })).isError).toBe(true)
    expect(snapshotDir(ws)).toEqual(before)
    expect(fs.readdirSync(ws)).toEqual(['f'])
    expect(text(await k.call('read', { file_path: 'f' }))).toBe('     1\tkeep')
  })

  it('a sandbox/mode event switches the session to workspace-write, and back', async () => {
    const { k, ws } = await setup()
    await k.ctx.sandbox.setMode(k.session, 'workspace-write', 'test')
    expect((await k.call('write', { file_path: 'f', content: 'ok' })).isError).toBe(false)
    await k.ctx.sandbox.setMode(k.session, 'read-only')
    expect((await k.call('write', { file_path: 'f', content: 'again' })).isError).toBe(true)
    expect(fs.readFileSync(path.join(ws, 'f'), 'utf8')).toBe('ok')
  })

  it('an approved explicit workspace-write mode allows that one call only', async () => {
    const { k, ws } = await setup()
    k.ctx.plugin({
      name: 'escalate-writes',
      apply(ctx: any) {
        ctx.on('tools/pre-execute', (exec: any, next: any) => (exec.name === 'write' && exec.arguments.content === 'escalate' ? { kind: 'ask', reason: 'needs a write', sandboxMode: 'workspace-write' } : next()))
        ctx.on('approval/request', () => ({ kind: 'approved', grant: 'once' }))
      },
    })
    await k.ctx.lifecycle.flush()
    const approved = await k.call('write', { file_path: 'f', content: 'escalate' }, { callId: 'esc' })
    expect(approved.isError).toBe(false)
    expect(fs.readFileSync(path.join(ws, 'f'), 'utf8')).toBe('escalate')
    const event = k.session.events().find((e) => e.type === 'tool/result' && (e.data as any).callId === 'esc')!.data as any
    expect(event).toMatchObject({ approvedSandboxMode: 'workspace-write', sandbox: { backend: 'in-process', mode: 'workspace-write' } })
    const next = await k.call('write', { file_path: 'f', content: 'not escalated' })
    expect(next.error?.message).toMatch(/read-only/)
    expect(fs.readFileSync(path.join(ws, 'f'), 'utf8')).toBe('escalate')
  })

  it('danger-full-access lifts the checks, as it lifts the OS sandbox', async () => {
    const { k, out } = await setup({ mode: 'danger-full-access' })
    expect((await k.call('write', { file_path: path.join(out, 'f'), content: 'anywhere' })).isError).toBe(false)
    expect(fs.readFileSync(path.join(out, 'f'), 'utf8')).toBe('anywhere')
  })
})

describe('paths (workspace-write)', () => {
  const escapes: Array<[string, (ws: string, out: string) => void, (ws: string, out: string) => string]> = [
    ['an absolute path outside', () => {}, (_ws, out) => path.join(out, 'secret')],
    ['a ".." path', () => {}, (ws, out) => `../../${path.relative('/', out)}/secret`],
    ['a symlink to an outside file', (ws, out) => fs.symlinkSync(path.join(out, 'secret'), path.join(ws, 'link')), () => 'link'],
    ['a symlinked directory', (ws, out) => fs.symlinkSync(out, path.join(ws, 'dir')), () => 'dir/secret'],
    ['a symlinked directory, new file', (ws, out) => fs.symlinkSync(out, path.join(ws, 'dir')), () => 'dir/new/deeper'],
    ['a dangling symlink pointing outside', (ws, out) => fs.symlinkSync(path.join(out, 'not-yet'), path.join(ws, 'dangling')), () => 'dangling'],
    ['/proc/self/root', () => {}, (_ws, out) => `/proc/self/root${out}/secret`],
  ]
  for (const [how, prepare, target] of escapes) {
    it(`write and edit cannot escape through ${how}`, async () => {
      const { k, ws, out } = await setup({ mode: 'workspace-write' })
      fs.writeFileSync(path.join(out, 'secret'), 'secret')
      prepare(ws, out)
      const before = snapshotDir(out)
      const w = await k.call('write', { file_path: target(ws, out), content: 'pwned' })
      expect(w.isError).toBe(true)
      expect(w.error!.message).toMatch(/outside the writable roots|symbolic link/)
      const e = await k.call('edit', { file_path: target(ws, out), old_string: 'secret', new_string: 'pwned' })
      expect(e.isError).toBe(true)
      expect(snapshotDir(out)).toEqual(before)
    })
  }

  it('a symlink inside the workspace to a file inside it is followed', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    fs.writeFileSync(path.join(ws, 'real.txt'), 'a')
    fs.symlinkSync('real.txt', path.join(ws, 'alias.txt'))
    expect((await k.call('edit', { file_path: 'alias.txt', old_string: 'a', new_string: 'b' })).isError).toBe(false)
    expect(fs.readFileSync(path.join(ws, 'real.txt'), 'utf8')).toBe('b')
    expect(fs.lstatSync(path.join(ws, 'alias.txt')).isSymbolicLink()).toBe(true)
  })

  it('read and ls stay inside the workspace too (and its symlinks cannot lead them out)', async () => {
    const { k, ws, out } = await setup()
    fs.writeFileSync(path.join(out, 'secret'), 'secret')
    fs.symlinkSync(out, path.join(ws, 'dir'))
    for (const [tool, args] of [
      ['read', { file_path: path.join(out, 'secret') }], ['read', { file_path: 'dir/secret' }], ['read', { file_path: '../../etc/passwd' }],
      ['ls', { path: out }], ['ls', { path: 'dir' }], ['ls', { path: '/' }],
    ] as const) {
      const r = await k.call(tool, args)
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true)
      expect(r.error!.message).toMatch(/outside the workspace/)
      expect(text(r)).not.toContain('secret\n')
    }
  })

  it('read may open the readableRoots the host configured', async () => {
    const extra = tmp('readable')
    fs.writeFileSync(path.join(extra, 'notes'), 'shared')
    const { k } = await setup({ config: { readableRoots: [extra] } })
    expect(text(await k.call('read', { file_path: path.join(extra, 'notes') }))).toBe('     1\tshared')
  })

  it('a file with more than one hard link is never written (the other name may be outside)', async () => {
    const { k, ws, out } = await setup({ mode: 'workspace-write' })
    fs.writeFileSync(path.join(out, 'secret'), 'secret')
    fs.linkSync(path.join(out, 'secret'), path.join(ws, 'hard'))
    const w = await k.call('write', { file_path: 'hard', content: 'pwned' })
    expect(w.error?.message).toMatch(/has 2 hard links/)
    const e = await k.call('edit', { file_path: 'hard', old_string: 'secret', new_string: 'pwned' })
    expect(e.error?.message).toMatch(/has 2 hard links/)
    expect(fs.readFileSync(path.join(out, 'secret'), 'utf8')).toBe('secret')
    // the twin: reading it is fine
    expect(text(await k.call('read', { file_path: 'hard' }))).toBe('     1\tsecret')
  })

  const protectedTargets = [
    '.git/config', '.git/hooks/pre-commit', '.claude/settings.json', '.mcp.json', '.dsh/x', '.codex/config.toml', '.git',
    '.bashrc', '.zshrc', '.gitconfig', '.envrc', '.vscode/tasks.json', '.idea/workspace.xml', '.husky/pre-push',
    'pkg/.envrc', 'vendor/lib/.git/hooks/post-checkout', 'a/b/c/.npmrc',
  ]
  for (const target of protectedTargets) {
    it(`protected: ${target} is never written or edited, whether or not it exists`, async () => {
      const { k, ws } = await setup({ mode: 'workspace-write' })
      const w1 = await k.call('write', { file_path: target, content: 'pwned' })
      expect(w1.error?.message).toMatch(/protected path/)
      expect(fs.readdirSync(ws)).toEqual([])
      fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true })
      fs.mkdirSync(path.join(ws, '.claude'))
      fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n')
      fs.writeFileSync(path.join(ws, '.claude/settings.json'), '{}')
      const before = snapshotDir(ws)
      expect((await k.call('write', { file_path: target, content: 'pwned' })).error?.message).toMatch(/protected path/)
      expect((await k.call('edit', { file_path: '.git/config', old_string: '[core]', new_string: '[core]\nhooksPath=/tmp' })).error?.message).toMatch(/protected path/)
      expect(snapshotDir(ws)).toEqual(before)
    })
  }

  it('below PROTECTED_DEPTH levels a start-up file is an ordinary file', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    expect((await k.call('write', { file_path: 'a/b/c/d/.envrc', content: 'ok' })).isError).toBe(false)
    expect(fs.readFileSync(path.join(ws, 'a/b/c/d/.envrc'), 'utf8')).toBe('ok')
  })

  it('git: commit lets the file tools write inside .git but for its hooks, config and info', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write', sandbox: { git: 'commit' } })
    fs.mkdirSync(path.join(ws, '.git/hooks'), { recursive: true })
    fs.writeFileSync(path.join(ws, '.git/config'), '[core]\n')
    expect((await k.call('write', { file_path: '.git/COMMIT_EDITMSG', content: 'msg' })).isError).toBe(false)
    for (const target of ['.git/hooks/pre-commit', '.git/config', '.git/info/attributes', '.git/modules/sub/hooks/post-checkout']) {
      expect((await k.call('write', { file_path: target, content: 'pwned' })).error?.message, target).toMatch(/protected path/)
    }
    expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toBe('[core]\n')
    expect(fs.readdirSync(path.join(ws, '.git/hooks'))).toEqual([])
  })

  it('protected paths are judged by the real path: a symlink alias to .git is refused too', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    fs.mkdirSync(path.join(ws, '.git'))
    fs.writeFileSync(path.join(ws, '.git/config'), 'x')
    fs.symlinkSync('.git', path.join(ws, 'gitdir'))
    expect((await k.call('write', { file_path: 'gitdir/config', content: 'pwned' })).error?.message).toMatch(/protected path/)
    expect(fs.readFileSync(path.join(ws, '.git/config'), 'utf8')).toBe('x')
    // the twin: .github is not .git
    expect((await k.call('write', { file_path: '.github/workflows/ci.yml', content: 'ok' })).isError).toBe(false)
  })
})

describe('check and open without a race', () => {
  it('a directory swapped for a symlink after the check makes the open fail; nothing is created outside', () => {
    const ws = tmp('race-ws')
    const out = tmp('race-out')
    fs.mkdirSync(path.join(ws, 'sub'))
    const target = resolveTarget(ws, 'sub/file', 'file_path')
    expect(target.real).toBe(path.join(ws, 'sub/file'))
    // the attacker's move, between the policy check and the open
    fs.rmdirSync(path.join(ws, 'sub'))
    fs.symlinkSync(out, path.join(ws, 'sub'))
    expect(() => openChecked(target.real, fs.constants.O_WRONLY | fs.constants.O_CREAT)).toThrow(/ELOOP|changed while it was being opened/)
    expect(fs.readdirSync(out)).toEqual([])
  })

  it('a file swapped for a symlink after the check is not followed', () => {
    const ws = tmp('race-ws')
    const out = tmp('race-out')
    fs.writeFileSync(path.join(out, 'secret'), 'secret')
    fs.writeFileSync(path.join(ws, 'f'), 'mine')
    const target = resolveTarget(ws, 'f', 'file_path')
    fs.unlinkSync(path.join(ws, 'f'))
    fs.symlinkSync(path.join(out, 'secret'), path.join(ws, 'f'))
    expect(() => openChecked(target.real, fs.constants.O_WRONLY)).toThrow(/became a symbolic link/)
    expect(fs.readFileSync(path.join(out, 'secret'), 'utf8')).toBe('secret')
  })

  it('an ancestor swapped for a symlink deeper up is caught by the fd\'s real path', () => {
    const ws = tmp('race-ws')
    const out = tmp('race-out')
    fs.mkdirSync(path.join(ws, 'a/b'), { recursive: true })
    fs.mkdirSync(path.join(out, 'b'))
    const target = resolveTarget(ws, 'a/b/file', 'file_path')
    fs.rmSync(path.join(ws, 'a'), { recursive: true })
    fs.symlinkSync(out, path.join(ws, 'a'))
    expect(() => openChecked(target.real, fs.constants.O_WRONLY | fs.constants.O_CREAT)).toThrow(/changed while it was being opened/)
    expect(fs.readdirSync(path.join(out, 'b'))).toEqual([])
  })
})
