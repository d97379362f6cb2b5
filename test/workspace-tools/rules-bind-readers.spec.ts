// Read and Edit rules bind every reader and writer (issue 29, items 4 and 5):
// claude-code-permissions' Read(...) denies hide paths from grep's, glob's
// and ls's walks and from bash on every backend, its Edit(...) denies keep
// paths read-only for bash, sandbox.readDeny takes workspace-relative paths,
// and the session log (.dsh) is neither readable from inside a call nor left
// for git to pick up. Each attack asserts what reached the result and what
// is on disk afterwards.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import type { ToolResult } from '@dsh/tools'
import { lacks } from '../backends.js'
import { tempDirs } from '../temp-dirs.js'

const dirs = tempDirs()
let kernel: TestKernel | undefined
afterEach(async () => {
  await kernel?.cleanup()
  kernel = undefined
  dirs.removeAll()
})

const text = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
const DENY = ['Read(./.env)', 'Read(./secrets/**)', 'Read(./**/*.pem)']

/** A workspace holding secrets (`.env`, `secrets/key.txt`, `deep/er/id.pem`), a control file and `src/a.ts`. */
function workspace(): string {
  const ws = dirs.make('dsh-rules-')
  fs.writeFileSync(path.join(ws, '.env'), 'SECRET-ENV\n')
  fs.mkdirSync(path.join(ws, 'secrets'))
  fs.writeFileSync(path.join(ws, 'secrets/key.txt'), 'SECRET-KEY-123\n')
  fs.mkdirSync(path.join(ws, 'deep/er'), { recursive: true })
  fs.writeFileSync(path.join(ws, 'deep/er/id.pem'), 'SECRET-PEM\n')
  fs.writeFileSync(path.join(ws, 'notes'), 'SECRET-FREE notes\n')
  fs.mkdirSync(path.join(ws, 'src'))
  fs.writeFileSync(path.join(ws, 'src/a.ts'), 'original\n')
  return ws
}

async function start(ws: string, opts: { backend?: string; mode?: 'read-only' | 'workspace-write'; deny?: string[]; sandbox?: Record<string, unknown>; rules?: boolean; extra?: Record<string, unknown> } = {}): Promise<TestKernel> {
  const permissions = { allow: ['mcp__dsh__bash'], deny: opts.deny ?? DENY }
  kernel = await createTestKernel({
    dataDir: path.join(ws, '.dsh'),
    ...opts.extra,
    sandbox: { workspace: ws, ...(opts.mode ? { mode: opts.mode } : {}), ...(opts.backend ? { backends: [opts.backend as any] } : {}), ...opts.sandbox },
    plugins: {
      'workspace-tools': {},
      ...(opts.rules === false ? {} : { 'claude-code-permissions': { workspace: ws, settingsFiles: [], permissions } }),
    },
  })
  return kernel
}

const resultOf = (k: TestKernel, callId: string) => k.session.events().find((e) => e.type === 'tool/result' && (e.data as any).callId === callId)?.data as any

describe('Read rules bind the walks of the file tools', () => {
  it('grep, glob and ls leave out what a Read deny names, say so, and still show the rest', async () => {
    const ws = workspace()
    const k = await start(ws)
    const g = await k.call('grep', { pattern: 'SECRET', output_mode: 'content' })
    expect(g.error).toBeUndefined()
    expect(text(g)).toContain('notes:1:SECRET-FREE')
    expect(text(g)).not.toMatch(/SECRET-(ENV|KEY|PEM)/)
    expect(text(g)).toMatch(/entries the read policy refuses were skipped/)
    const files = await k.call('glob', { pattern: '**/*' })
    expect(text(files)).toContain('src/a.ts')
    expect(text(files)).not.toMatch(/\.env|key\.txt|id\.pem/)
    const list = await k.call('ls', { path: '.' })
    expect(text(list)).toContain('notes')
    expect(text(list)).not.toMatch(/^\.env$|^secrets\/$|^\.dsh\/$/m)
    expect(text(list)).toMatch(/entries the read policy refuses are not shown/)
    expect((list.value as { notes?: string[] }).notes).toEqual([expect.stringMatching(/^\[\d+ entries the read policy refuses are not shown\]$/)])
    expect((files.value as { notes?: string[] }).notes ?? []).toEqual(text(files).split('\n').filter((line) => line.startsWith('[')))
    expect(text(await k.call('ls', { path: 'deep/er' }))).not.toContain('id.pem')
    // a pattern rule is matched exactly by the file tools, also for a file made after the call started
    fs.writeFileSync(path.join(ws, 'deep/new.pem'), 'SECRET-PEM-NEW\n')
    expect(text(await k.call('grep', { pattern: 'SECRET-PEM', output_mode: 'content' }))).not.toContain('SECRET-PEM')
  })
})

for (const backend of ['bwrap', 'landlock-ns', 'landlock'] as const) {
  describe.skipIf(await lacks(backend, `rules binding bash on ${backend}`))(`rules bind bash on ${backend}`, () => {
    it('a Read deny hides the path from bash: cat, grep -r and a pattern rule print nothing of it', async () => {
      const ws = workspace()
      const k = await start(ws, { backend })
      const r = await k.call('bash', { command: 'cat .env; cat secrets/key.txt; cat deep/er/id.pem; grep -r SECRET . ; ls secrets; echo done' }, { callId: 'r1' })
      expect(text(r)).toContain('done')
      expect(text(r)).toContain('SECRET-FREE notes')
      expect(text(r)).not.toMatch(/SECRET-(ENV|KEY|PEM)/)
      expect((r.value as any).stdout).not.toContain('key.txt')
      const facts = resultOf(k, 'r1').sandbox
      expect(facts.backend).toBe(backend)
      expect(facts.hidden).toEqual(expect.arrayContaining([path.join(ws, '.env'), path.join(ws, 'secrets'), path.join(ws, 'deep/er/id.pem')]))
      // a pattern is expanded when the call starts: a file made during it is not covered, and that is said
      expect(facts.unenforced).toContain('path-rules-new-paths')
      expect(facts.unenforced).not.toContain('read-deny')
      expect(fs.readFileSync(path.join(ws, '.env'), 'utf8')).toBe('SECRET-ENV\n')
    })

    it('an Edit deny keeps the path read-only for bash under workspace-write: the write, the removal and the rename fail or are undone', async () => {
      const ws = workspace()
      const k = await start(ws, { backend, mode: 'workspace-write', deny: ['Edit(./src/**)'] })
      const r = await k.call('bash', { command: 'echo x > src/a.ts; echo y > src/b.ts; rm -f src/a.ts; mv src gone; echo z > notes; echo done' })
      expect(text(r)).toContain('done')
      expect(fs.readFileSync(path.join(ws, 'src/a.ts'), 'utf8')).toBe('original\n')
      expect(fs.readdirSync(path.join(ws, 'src'))).toEqual(['a.ts'])
      // Landlock alone cannot refuse the rename: it puts src back after the call, and the moved copy stays (protected-paths in unenforced)
      if (backend !== 'landlock') expect(fs.existsSync(path.join(ws, 'gone'))).toBe(false)
      // the rest of the workspace stays writable
      expect(fs.readFileSync(path.join(ws, 'notes'), 'utf8')).toBe('z\n')
      // bwrap and landlock-ns refuse it in the call; Landlock alone puts it back after (and says so)
      if (backend === 'landlock') expect(text(r)).toMatch(/restored protected paths the command changed: .*src/)
      else expect(text(r)).toMatch(/src\/a\.ts: Read-only file system/)
    })

    it('Edit(./**) keeps the whole workspace read-only for bash, as read-only mode would', async () => {
      const ws = workspace()
      const k = await start(ws, { backend, mode: 'workspace-write', deny: ['Edit(./**)'] })
      const r = await k.call('bash', { command: 'echo x > notes; echo y > new-file; echo done' }, { callId: 'e1' })
      expect(text(r)).toContain('done')
      expect(fs.readFileSync(path.join(ws, 'notes'), 'utf8')).toBe('SECRET-FREE notes\n')
      expect(fs.existsSync(path.join(ws, 'new-file'))).toBe(false)
    })

    it('sandbox.readDeny takes workspace-relative paths (./secrets, .env, deep/**)', async () => {
      const ws = workspace()
      const k = await start(ws, { backend, rules: false, sandbox: { readDeny: ['./secrets', '.env', 'deep/**'] } })
      const r = await k.call('bash', { command: 'cat .env secrets/key.txt deep/er/id.pem; grep -r SECRET .; echo done' })
      expect(text(r)).toContain('done')
      expect(text(r)).toContain('SECRET-FREE notes')
      expect(text(r)).not.toMatch(/SECRET-(ENV|KEY|PEM)/)
      expect((await k.call('read', { file_path: 'secrets/key.txt' })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
    })

    it('the session log is not readable from inside a call (grep -r . .dsh), unless dataDirReadable: true', async () => {
      const ws = workspace()
      const k = await start(ws, { backend, rules: false })
      await k.call('bash', { command: 'echo LOGGED-MARKER-42' })
      expect(fs.readFileSync(k.session.path, 'utf8')).toContain('LOGGED-MARKER-42')
      const r = await k.call('bash', { command: 'grep -r . .dsh; cat .dsh/sessions/*.jsonl; ls -a .dsh; echo done' })
      expect(text(r)).toContain('done')
      expect(text(r)).not.toMatch(/LOGGED-MARKER-42|tool\/call/)
      // what ls -a shows of it: nothing but . and ..
      expect((r.value as any).stdout).toBe('.\n..\ndone\n')
      expect((await k.call('read', { file_path: k.session.path })).error?.message).toMatch(/hidden by the sandbox's readDeny/)
      expect(text(await k.call('grep', { pattern: 'MARKER', path: '.dsh' }))).not.toContain('LOGGED-MARKER-42')
      await kernel!.cleanup()
      kernel = undefined
      const ws2 = workspace()
      const open = await start(ws2, { backend, rules: false, extra: { dataDirReadable: true } })
      await open.call('bash', { command: 'echo LOGGED-MARKER-42' })
      expect(text(await open.call('bash', { command: 'cat .dsh/sessions/*.jsonl' }))).toContain('LOGGED-MARKER-42')
    })
  })
}

describe('after a reload', () => {
  it('a reload that replaces the sandbox service keeps the rules and the data directory hidden from bash and the file tools', async () => {
    const ws = workspace()
    const k = await start(ws)
    const permissions = { allow: ['mcp__dsh__bash'], deny: DENY }
    await k.reload({
      dataDir: path.join(ws, '.dsh'),
      sandbox: { workspace: ws, network: 'off', readDeny: [] },
      plugins: { 'workspace-tools': {}, 'claude-code-permissions': { workspace: ws, settingsFiles: [], permissions } },
    })
    await k.call('bash', { command: 'echo LOGGED-MARKER-42' })
    const r = await k.call('bash', { command: 'cat .env secrets/key.txt deep/er/id.pem .dsh/sessions/*; echo done' })
    expect(text(r)).toContain('done')
    expect(text(r)).not.toMatch(/SECRET-(ENV|KEY|PEM)|LOGGED-MARKER-42/)
    expect(text(await k.call('grep', { pattern: 'SECRET', output_mode: 'content' }))).not.toMatch(/SECRET-(ENV|KEY|PEM)/)
  })

  it('dataDirReadable cannot be turned on by a reload (a config rewritten from inside a call would open the logs)', async () => {
    const ws = workspace()
    const k = await start(ws, { rules: false })
    await expect(k.reload({ dataDir: path.join(ws, '.dsh'), dataDirReadable: true, sandbox: { workspace: ws }, plugins: { 'workspace-tools': {} } })).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringMatching(/dataDirReadable cannot change on reload/) })
    await k.call('bash', { command: 'echo LOGGED-MARKER-42' })
    expect(text(await k.call('bash', { command: 'cat .dsh/sessions/*; echo done' }))).not.toContain('LOGGED-MARKER-42')
  })
})

describe('the data directory is git-ignored', () => {
  it('dsh writes .dsh/.gitignore with * when it creates the directory (not into one that exists), and git status after a call shows no .dsh/', async () => {
    const ws = dirs.make('dsh-git-')
    execFileSync('git', ['init', '-q', ws])
    const k = await start(ws, { rules: false })
    await k.call('ls', { path: '.' })
    expect(fs.readFileSync(path.join(ws, '.dsh/.gitignore'), 'utf8')).toMatch(/^\*$/m)
    const status = execFileSync('git', ['-C', ws, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })
    expect(status).not.toContain('.dsh')
    // a data directory that exists already is left as it is (its owner may have removed the file on purpose)
    await kernel!.cleanup()
    kernel = undefined
    const own = dirs.make('dsh-git-')
    fs.mkdirSync(path.join(own, '.dsh'))
    await start(own, { rules: false })
    expect(fs.readdirSync(path.join(own, '.dsh'))).toEqual(['sessions'])
  })
})
