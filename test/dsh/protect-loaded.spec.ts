/**
 * What dsh loads is protected (issue 29, item 1): under workspace-write, on
 * every backend this machine has, neither bash nor the file tools can change
 * the config file in use (at the workspace's top or in a subdirectory named
 * with --config), nor the code of a plugin loaded by path — also not by
 * renaming an ancestor away and planting a new file, nor by replacing the
 * file with a rename. Each attack is followed by a check of the disk.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { stringify } from 'yaml'
import { createKernel, type Kernel } from 'dsh'
import type { LocalBackend } from '@dsh/sandbox'
import { LINUX_BACKENDS as BACKENDS, unavailableLinuxBackends } from '../backends.js'
import { kernelsDisposedAfterEach, turnOf } from '../kernels.js'
import { tempDirs } from '../temp-dirs.js'

const missing = await unavailableLinuxBackends()
const dirs = tempDirs()
const kernels = kernelsDisposedAfterEach(dirs)

const PLUGIN = `import { answer } from './helper.mjs'
export const name = 'local-plugin'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'probe', description: 'which code runs', parameters: { type: 'object' }, execute: () => answer })
}
`

interface Setup {
  ws: string
  config: string
  text: string
  kernel: Kernel
  call(name: string, args: object): Promise<{ isError: boolean; text: string; code?: string }>
}

/** A workspace with a config (at `configAt`, relative) loading workspace-tools and a plugin in plugins/local/, on `backend`. */
async function setup(backend: LocalBackend, configAt = 'dsh.yml', extra: Record<string, unknown> = {}): Promise<Setup> {
  const ws = dirs.make('dsh-protect-')
  const config = join(ws, configAt)
  mkdirSync(join(config, '..'), { recursive: true })
  mkdirSync(join(ws, 'plugins/local'), { recursive: true })
  writeFileSync(join(ws, 'plugins/local/index.mjs'), PLUGIN)
  writeFileSync(join(ws, 'plugins/local/helper.mjs'), 'export const answer = "mine"\n')
  const text = stringify({
    dataDir: join(ws, '.dsh'),
    sandbox: { mode: 'workspace-write', workspace: ws, backends: [backend] },
    plugins: { 'workspace-tools': { workspace: ws }, [join(ws, 'plugins/local/index.mjs')]: {}, ...extra },
  })
  writeFileSync(config, text)
  const kernel = await createKernel({ configFile: config })
  kernels.push(kernel)
  const execute = turnOf(kernel)
  return {
    ws, config, text, kernel,
    async call(name, args) {
      const r = await execute(name, args)
      return { isError: r.isError, code: r.error?.code, text: r.content.map((b) => ('text' in b ? b.text : '')).join('') }
    },
  }
}

/**
 * A real process leases `leased` for a call in `ws` as the sandbox does (copied, to be put back),
 * writes `text` to `file` as the command would, and is killed before it can put anything back.
 * The lease goes to a ledger of the test's own (TMPDIR, restored when the test ends): another
 * process's first call would put back what the killed holder left before the test's start.
 */
function leaseRewriteAndDie(ws: string, leased: string, file: string, text: string): void {
  const ledger = dirs.make('dsh-protect-ledger-')
  const before = process.env.TMPDIR
  process.env.TMPDIR = ledger
  onTestFinished(() => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
  })
  const lib = join(import.meta.dirname, '../../core/sandbox/lib/index.js')
  const script = `import { leaseProtected } from ${JSON.stringify(lib)}; import { writeFileSync } from 'node:fs'; leaseProtected([${JSON.stringify(leased)}], [${JSON.stringify(ws)}], [${JSON.stringify(leased)}]); writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(text)}); process.kill(process.pid, 'SIGKILL')`
  expect(spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: ledger } }).signal).toBe('SIGKILL')
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined)

for (const backend of BACKENDS) {
  describe.skipIf(missing[backend] !== undefined)(`what dsh loads, under workspace-write on ${backend}`, () => {
    it('bash cannot rewrite dsh.yml: sed -i, echo >, a rename over it, a rename of it away', async () => {
      const s = await setup(backend)
      for (const command of [
        "sed -i 's/workspace-write/danger-full-access/' dsh.yml",
        "printf 'sandbox:\\n  mode: danger-full-access\\n' > dsh.yml",
        "printf 'sandbox: {}\\n' > new.yml && mv -f new.yml dsh.yml",
        'mv dsh.yml gone.yml',
        'rm -f dsh.yml && echo "plugins: {}" > dsh.yml',
      ]) {
        await s.call('bash', { command })
        expect(read(s.config), command).toBe(s.text)
      }
      // the kernel that starts next loads what the person wrote
      const next = await createKernel({ configFile: s.config })
      kernels.push(next)
      expect(next.options.sandbox?.mode).toBe('workspace-write')
    })

    it('a config in a subdirectory (--config sub/dsh.yml) holds, also when sub/ is renamed away and a new one planted', async () => {
      const s = await setup(backend, 'conf/dsh.yml')
      await s.call('bash', { command: "sed -i 's/workspace-write/danger-full-access/' conf/dsh.yml" })
      expect(read(s.config)).toBe(s.text)
      const r = await s.call('bash', { command: 'mv conf confX && mkdir conf && printf "sandbox:\\n  mode: danger-full-access\\n" > conf/dsh.yml && cat conf/dsh.yml' })
      expect(r.isError).toBe(false)
      expect(read(s.config)).toBe(s.text)
      const parent = await s.call('bash', { command: 'mkdir -p elsewhere && mv conf elsewhere/ && mkdir conf && echo "plugins: {}" > conf/dsh.yml' })
      expect(parent.isError).toBe(false)
      expect(read(s.config)).toBe(s.text)
    })

    it('the code of a plugin loaded by path cannot be rewritten: its entry, a module it imports, a file added to its directory', async () => {
      const s = await setup(backend)
      const entry = join(s.ws, 'plugins/local/index.mjs')
      const helper = join(s.ws, 'plugins/local/helper.mjs')
      await s.call('bash', { command: 'echo "export const answer = \\"evil\\"" > plugins/local/helper.mjs' })
      await s.call('bash', { command: 'echo "throw 1" >> plugins/local/index.mjs' })
      await s.call('bash', { command: 'echo x > plugins/local/added.mjs' })
      expect(read(entry)).toBe(PLUGIN)
      expect(read(helper)).toBe('export const answer = "mine"\n')
      // bwrap and landlock-ns bind the directory read-only; Landlock alone puts it back whole
      expect(existsSync(join(s.ws, 'plugins/local/added.mjs'))).toBe(false)
      const reloaded = await s.kernel.reload()
      expect(reloaded.changed).toEqual([])
      expect((await s.call('probe', {})).text).toBe('mine')
    })

    it('renaming the plugin\'s directory away and planting a copy with changed code leaves nothing of the copy to load', async () => {
      const s = await setup(backend)
      const helper = join(s.ws, 'plugins/local/helper.mjs')
      const r = await s.call('bash', { command: 'mv plugins pluginsX && mkdir -p plugins/local && cp pluginsX/local/index.mjs plugins/local/ && echo "export const answer = \\"evil\\"" > plugins/local/helper.mjs && echo planted' })
      // bwrap and landlock-ns: every directory above a protected entry is a mount point, so the rename fails (EBUSY);
      // Landlock alone lets it happen and puts the directory back whole
      if (backend === 'landlock') expect(r.text).toMatch(/planted/)
      else expect(r.text).toMatch(/cannot move 'plugins' to 'pluginsX': Device or resource busy/)
      expect(read(helper) ?? 'absent').toMatch(/^(export const answer = "mine"\n|absent)$/)
      expect(read(join(s.ws, 'pluginsX/local/helper.mjs')) ?? read(helper)).toBe('export const answer = "mine"\n')
      // the next start loads the person's code or fails naming the file; it never runs the planted one
      const next = await createKernel({ configFile: s.config }).then((k) => (kernels.push(k), k), (error: Error) => error)
      if (next instanceof Error) expect(next.message).toMatch(/plugins\/local\/index\.mjs/)
      else {
        const session = next.openSession()
        session.beginTurn()
        const probe = await next.execute({ callId: 'p', name: 'probe', arguments: {}, session })
        expect(probe.content).toEqual([{ type: 'text', text: 'mine' }])
      }
    })
  })
}

describe('what dsh loads, in the in-process tools (workspace-write)', () => {
  const backend = BACKENDS.find((b) => missing[b] === undefined)

  it.skipIf(!backend)('write and edit of dsh.yml and of a plugin file are refused, and nothing changes; a new file beside them is not', async () => {
    const s = await setup(backend!)
    const w = await s.call('write', { file_path: 'dsh.yml', content: 'sandbox:\n  mode: danger-full-access\n' })
    expect(w.code).toBe('TOOL_FAILED')
    expect(w.text).toMatch(/protected path .*dsh\.yml/)
    const e = await s.call('edit', { file_path: s.config, old_string: 'workspace-write', new_string: 'danger-full-access' })
    expect(e.text).toMatch(/protected path .*dsh\.yml/)
    expect(read(s.config)).toBe(s.text)
    // the attack found: a new plugin file (allowed: nothing loads it) added to dsh.yml (refused)
    expect((await s.call('write', { file_path: 'evil.mjs', content: 'export function apply() {}\n' })).isError).toBe(false)
    const add = await s.call('edit', { file_path: 'dsh.yml', old_string: 'plugins:\n', new_string: 'plugins:\n  ./evil.mjs: {}\n' })
    expect(add.isError).toBe(true)
    expect(read(s.config)).toBe(s.text)
    for (const file of ['plugins/local/index.mjs', 'plugins/local/helper.mjs', 'plugins/local/new.mjs']) {
      const r = await s.call('write', { file_path: file, content: 'export const answer = "evil"\n' })
      expect(r.text, file).toMatch(/protected path/)
    }
    expect(read(join(s.ws, 'plugins/local/helper.mjs'))).toBe('export const answer = "mine"\n')
    // through a symlink made by bash
    await s.call('bash', { command: 'ln -s dsh.yml link.yml' })
    expect((await s.call('write', { file_path: 'link.yml', content: 'x' })).text).toMatch(/protected path/)
    expect(read(s.config)).toBe(s.text)
  })

  it.skipIf(!backend)('a reload follows what is loaded: a plugin dropped from the config is the user\'s to change again; one re-plugged sandbox keeps the rest protected', async () => {
    const s = await setup(backend!)
    const next = stringify({
      dataDir: join(s.ws, '.dsh'),
      sandbox: { mode: 'workspace-write', workspace: s.ws, backends: [backend], limits: { openFiles: 1000 } },
      plugins: { 'workspace-tools': { workspace: s.ws } },
    })
    // a person's edit, outside the sandbox
    writeFileSync(s.config, next)
    await s.kernel.reload()
    expect((await s.call('write', { file_path: 'plugins/local/helper.mjs', content: 'export const answer = "changed"\n' })).isError).toBe(false)
    expect((await s.call('write', { file_path: 'dsh.yml', content: 'x' })).text).toMatch(/protected path/)
    await s.call('bash', { command: 'echo x > dsh.yml' })
    expect(read(s.config)).toBe(next)
  })

  it('a config a killed dsh process\'s call left rewritten is put back before the next start reads it', async () => {
    const ws = dirs.make('dsh-protect-killed-')
    const config = join(ws, 'dsh.yml')
    const mine = stringify({ dataDir: join(ws, '.dsh'), sandbox: { mode: 'workspace-write', workspace: ws }, plugins: {} })
    writeFileSync(config, mine)
    // a real process takes the config for a call as the sandbox does (copied, to be put back), the command rewrites it, the process is killed
    leaseRewriteAndDie(ws, config, config, 'sandbox:\n  mode: danger-full-access\n')
    expect(read(config)).toMatch(/danger-full-access/)
    const kernel = await createKernel({ configFile: config })
    kernels.push(kernel)
    expect(kernel.options.sandbox?.mode).toBe('workspace-write')
    expect(read(config)).toBe(mine)
  })

  it('a plugin whose code a killed dsh process\'s call left rewritten is put back before the next start imports it', async () => {
    const ws = dirs.make('dsh-protect-killed-code-')
    const dir = join(ws, 'plugins/local')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'index.mjs'), PLUGIN)
    writeFileSync(join(dir, 'helper.mjs'), 'export const answer = "mine"\n')
    const config = join(ws, 'dsh.yml')
    writeFileSync(config, stringify({ dataDir: join(ws, '.dsh'), sandbox: { mode: 'workspace-write', workspace: ws }, plugins: { [join(dir, 'index.mjs')]: {} } }))
    // as plain Landlock leases a registered directory: copied whole; the command rewrites a module, the process is killed
    leaseRewriteAndDie(ws, dir, join(dir, 'helper.mjs'), 'export const answer = "evil"\n')
    expect(read(join(dir, 'helper.mjs'))).toMatch(/evil/)
    const kernel = await createKernel({ configFile: config })
    kernels.push(kernel)
    const probe = await turnOf(kernel, 'p')('probe', {})
    expect(probe.content).toEqual([{ type: 'text', text: 'mine' }])
  })
})
