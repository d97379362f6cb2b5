/**
 * Every workspace package, packed with `npm pack` and installed from the
 * tarballs into an empty project outside the repository, works there: one copy
 * of the shared core packages, the Landlock launcher inside @dsh/sandbox, `npx
 * dsh demo` confined by a real backend, `dsh mcp` answering the official MCP SDK
 * client. Everything the project runs runs with the repository hidden (an empty
 * read-only tmpfs over it in a private mount namespace), so nothing is found
 * through a path into the checkout.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { sandboxBackend, skipWhen } from '../backends.js'
import { cleanEnv, outsideDir } from './outside.js'

const root = path.resolve(import.meta.dirname, '../..')
const target = `${process.platform}-${process.arch}`
const backend = await sandboxBackend()

interface Manifest {
  name: string
  version: string
  private?: boolean
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

/** The root package.json's workspace globs (`dir/*` or a plain directory), expanded. */
function workspaceDirs(): string[] {
  const globs = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob]
    const base = glob.slice(0, -2)
    return fs.readdirSync(path.join(root, base)).sort().map((name) => `${base}/${name}`)
  }).filter((dir) => fs.existsSync(path.join(root, dir, 'package.json')))
}

const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Manifest
const workspaces = workspaceDirs().map((dir) => ({ dir, manifest: manifestOf(dir) })).filter((w) => !w.manifest.private)
const plugins = workspaces.filter((w) => w.dir.startsWith('plugins/'))
// the packages a plugin must share with the kernel it is loaded into (one copy each)
const SHARED = ['@dsh/kernel', '@dsh/tools', '@dsh/approval', '@dsh/sandbox', '@dsh/system-prompt', 'cordis']

/** Whether a private mount namespace with a tmpfs over the repository can be made here. */
function canHide(): string | undefined {
  const run = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o ro,size=4k dsh-hidden "$0" && ! test -e "$0/package.json"', root], { encoding: 'utf8' })
  if (run.error) return `unshare cannot run: ${run.error.message}`
  return run.status === 0 ? undefined : `a private mount namespace is not permitted here: ${run.stderr.trim()}`
}

const cannotHide = canHide()
if (cannotHide) console.warn(`running the installed project without hiding the repository (${cannotHide}); it still runs from a temp dir outside it`)

/** argv running `argv` with the repository hidden, where that is possible. */
function hidden(argv: string[]): string[] {
  if (cannotHide) return argv
  return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs -o ro,size=4k dsh-hidden "$0" && exec "$@"', root, ...argv]
}

let work: string
let project: string

function run(argv: string[], timeout = 120_000, cwd = project, env: Record<string, string> = {}) {
  const [command, ...args] = hidden(argv)
  return spawnSync(command, args, { cwd, env: { ...cleanEnv(), ...env }, encoding: 'utf8', timeout })
}

beforeAll(() => {
  work = outsideDir('dsh-pack-')
  const packs = path.join(work, 'tarballs')
  project = path.join(work, 'project')
  fs.mkdirSync(packs)
  fs.mkdirSync(project)
  const pack = spawnSync('npm', ['pack', '--workspaces', '--pack-destination', packs, '--json', '--silent'], { cwd: root, encoding: 'utf8', timeout: 240_000 })
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`)
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'dsh-user', private: true, type: 'module' }))
  const tarballs = fs.readdirSync(packs).map((name) => path.join(packs, name))
  // from the local tarballs; third-party packages come from the npm cache where they are there already
  const install = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], { cwd: project, env: cleanEnv(), encoding: 'utf8', timeout: 300_000 })
  if (install.status !== 0) throw new Error(`npm install of the tarballs failed:\n${install.stderr}`)
}, 600_000)

afterAll(async () => {
  if (work) await fs.promises.rm(work, { recursive: true, force: true })
}, 120_000)

const installed = (...parts: string[]) => path.join(project, 'node_modules', ...parts)

describe('the packages, installed from their tarballs', () => {
  it('every workspace package is packed and installed; dsh depends on every bundled plugin; shared packages are installed once', () => {
    for (const { manifest } of workspaces) expect(fs.existsSync(installed(manifest.name, 'package.json')), manifest.name).toBe(true)
    const dsh = workspaces.find((w) => w.manifest.name === 'dsh')!.manifest
    for (const { manifest } of plugins) {
      expect(dsh.dependencies?.[manifest.name], `dsh depends on ${manifest.name}`).toBe(manifest.version)
      for (const name of SHARED) expect(manifest.dependencies?.[name], `${manifest.name} takes ${name} as a peer, not its own copy`).toBeUndefined()
    }
    const copies = (name: string) => spawnSync('find', [installed(), '-path', `*/node_modules/${name}/package.json`], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean)
    for (const name of SHARED) expect(copies(name), name).toEqual([installed(name, 'package.json')])
  })

  it('@dsh/sandbox holds a static launcher for this machine, the build its manifest records', () => {
    const manifest = JSON.parse(fs.readFileSync(installed('@dsh/sandbox', 'native', 'manifest.json'), 'utf8'))
    const entry = manifest.launchers[target]
    expect(entry).toMatchObject({ path: `${target}/landlock-run`, static: true })
    expect(createHash('sha256').update(fs.readFileSync(installed('@dsh/sandbox', 'native', entry.path))).digest('hex')).toBe(entry.sha256)
    // linux-arm64 is packed too wherever Debian's cross compiler is installed
    if (process.arch === 'x64' && spawnSync('aarch64-linux-gnu-gcc', ['--version']).status === 0) expect(manifest.launchers['linux-arm64']).toMatchObject({ static: true })
  })

  it.skipIf(skipWhen(backend === undefined, 'the installed demo', 'no sandbox backend can run here'))('npx dsh demo: exit 0, confined by this machine\'s backend, the shell steps ok', () => {
    const demo = run(['npx', '--no-install', 'dsh', 'demo'])
    expect(demo.stderr).toBe('')
    expect(demo.status).toBe(0)
    expect(demo.stdout).toContain(`sandbox backend: ${backend}\n`)
    expect(demo.stdout).toMatch(/1\. a shell command runs confined.*\n\s+ok hello from Linux/)
    expect(demo.stdout).toMatch(/4\. code mode.*\n\s+ok \{"files":\["approved.txt"\],"bytes":23/)
    expect(demo.stdout).toMatch(/5\. a large output is spilled.*\n\s+ok 1 2 3/)
    expect(demo.stdout).not.toMatch(/SANDBOX_UNAVAILABLE|scripted to end/)
  }, 180_000)

  it('dsh mcp with no config lists the same tools as the checkout\'s; with a dsh.yml its bash runs confined', async () => {
    const listed = async (cwd: string, argv: string[]) => {
      const [command, ...args] = argv
      const client = new Client({ name: 'pack-test', version: '1.0.0' })
      await client.connect(new StdioClientTransport({ command, args, cwd, env: cleanEnv(), stderr: 'pipe' }))
      try {
        return { names: (await client.listTools()).tools.map((tool) => tool.name).sort(), client }
      } catch (error) {
        await client.close()
        throw error
      }
    }
    const empty = fs.mkdtempSync(path.join(work, 'no-config-'))
    const repo = await listed(empty, [process.execPath, path.join(root, 'core/dsh/lib/cli.js'), 'mcp'])
    await repo.client.close()
    const bare = await listed(project, hidden([installed('.bin', 'dsh'), 'mcp']))
    await bare.client.close()
    expect(bare.names).toEqual(repo.names)

    fs.writeFileSync(path.join(project, 'dsh.yml'), `sandbox:\n  workspace: ${project}\nplugins:\n  workspace-tools:\n    workspace: ${project}\n`)
    try {
      const configured = await listed(project, hidden([installed('.bin', 'dsh'), 'mcp']))
      try {
        expect(configured.names).toEqual(expect.arrayContaining(['bash', 'edit', 'ls', 'read', 'write']))
        if (backend) {
          const result = await configured.client.callTool({ name: 'bash', arguments: { command: 'echo confined; touch made 2>/dev/null || echo refused' } }) as { isError?: boolean; content: Array<{ text?: string }> }
          expect(result.isError).toBeFalsy()
          expect(result.content.map((c) => c.text).join('')).toMatch(/confined\s+refused/)
          expect(fs.existsSync(path.join(project, 'made'))).toBe(false)
        }
      } finally {
        await configured.client.close()
      }
    } finally {
      fs.rmSync(path.join(project, 'dsh.yml'))
    }
  }, 180_000)

  it('the installed dsh runs its bundle, and a plugin of the project shares the bundle\'s cordis, @dsh/kernel and bundled plugins', () => {
    expect(fs.existsSync(installed('dsh', 'dist', 'start.cjs')), 'the tarball holds the bundle').toBe(true)
    // npm links the package's bin, the CommonJS one
    expect(fs.realpathSync(installed('.bin', 'dsh'))).toBe(fs.realpathSync(installed('dsh', 'bin', 'dsh.cjs')))
    // the tarball's code cache was made at the build's path, which stack traces would name: its first
    // run compiles the script under its installed path and makes the cache anew, which the next run uses
    expect(fs.existsSync(installed('dsh', 'dist', 'cli.cjs.cache')), 'the tarball holds the script\'s code cache').toBe(true)
    const first = run([installed('.bin', 'dsh'), '--version'], 120_000, project, { NODE_DEBUG: 'dsh-bundle' })
    expect(first.status, first.stderr).toBe(0)
    const version = run([installed('.bin', 'dsh'), '--version'], 120_000, project, { NODE_DEBUG: 'dsh-bundle' })
    expect(version.status, version.stderr).toBe(0)
    expect(version.stderr).toContain(`${installed('dsh', 'dist', 'cli.cjs')}: code cache used`)
    const plugin = path.join(project, 'shared-copies.mjs')
    fs.copyFileSync(path.join(root, 'test/fixtures/plugins/shared-copies.mjs'), plugin)
    const config = path.join(project, 'shared-copies.yml')
    fs.writeFileSync(config, `plugins:\n  workspace-tools:\n    workspace: ${project}\n  ./shared-copies.mjs: {}\n`)
    try {
      const exec = run([installed('.bin', 'dsh'), 'exec', 'shared_copies', '{}', '--config', config, '--json'])
      expect(exec.status, exec.stderr).toBe(0)
      const value = JSON.parse(exec.stdout).result.value
      expect(value).toEqual({ cordis: true, kernel: true, libKernel: null, workspaceTools: true, kernelUrl: pathToFileURL(installed('dsh', 'dist', 'shared', 'dsh-kernel.js')).href })
    } finally {
      fs.rmSync(plugin)
      fs.rmSync(config)
    }
  }, 180_000)

  it('a stack trace through the installed bundle names files that exist: with its code cache, without, and mapped by --enable-source-maps', () => {
    const plugin = path.join(project, 'stack-tool.mjs')
    fs.writeFileSync(plugin, "export const name = 'stack-tool'\nexport const inject = ['tools']\nexport function apply(ctx) {\n  ctx.tools.register({ name: 'stack', description: 'the stack of a call', parameters: { type: 'object' }, execute: () => new Error('here').stack })\n}\n")
    const config = path.join(project, 'stack.yml')
    fs.writeFileSync(config, 'plugins:\n  ./stack-tool.mjs: {}\n')
    const cache = installed('dsh', 'dist', 'cli.cjs.cache')
    const made = fs.readFileSync(cache)
    try {
      const frames = (env: Record<string, string>) => {
        const exec = run([installed('.bin', 'dsh'), 'exec', 'stack', '{}', '--config', config, '--json'], 120_000, project, env)
        expect(exec.status, exec.stderr).toBe(0)
        const stack = (JSON.parse(exec.stdout).result.content as Array<{ text: string }>)[0].text
        const files = [...stack.matchAll(/\(?(\/[^():\s]+):\d+:\d+\)?/g)].map((m) => m[1])
        expect(files.length, stack).toBeGreaterThan(3)
        return { stack, files }
      }
      // the tarball's cache (made at the build's path), the one remade here, none, and the source map
      for (const [what, env, before] of [
        ['the packed cache', { NODE_DEBUG: 'dsh-bundle' }, () => fs.writeFileSync(cache, made)],
        ['the cache remade here', {}, () => {}],
        ['no cache', {}, () => fs.rmSync(cache, { force: true })],
        ['source maps', { NODE_OPTIONS: '--enable-source-maps' }, () => {}],
      ] as const) {
        before()
        const { stack, files } = frames(env)
        const bundled = files.filter((file) => file.includes(`${path.sep}node_modules${path.sep}`))
        expect(bundled.length, `${what}: frames in the installed packages\n${stack}`).toBeGreaterThan(0)
        for (const file of files) expect(fs.existsSync(file), `${what}: ${file} exists\n${stack}`).toBe(true)
        if (what === 'source maps') expect(files.some((file) => file.endsWith('.ts')), `${what}: mapped to the sources\n${stack}`).toBe(true)
      }
    } finally {
      fs.writeFileSync(cache, made)
      fs.rmSync(plugin)
      fs.rmSync(config)
    }
  }, 180_000)

  it('the installed bundle\'s vendored files run where they are installed: a plugin\'s syntax error placed (acorn), a span exported with --otel (the OpenTelemetry SDK)', async () => {
    const plugin = path.join(project, 'broken-syntax.mjs')
    fs.writeFileSync(plugin, "export const name = 'broken'\nexport function apply(ctx) {\n  const x = ;\n}\n")
    const config = path.join(project, 'broken.yml')
    fs.writeFileSync(config, 'plugins:\n  ./broken-syntax.mjs: {}\n')
    try {
      const exec = run([installed('.bin', 'dsh'), 'exec', 'ls', '{}', '--config', config], 120_000, project, { NODE_DEBUG: 'dsh-bundle' })
      expect(exec.status, exec.stderr).toBe(2)
      expect(exec.stderr).toContain(`${plugin}:3:13: Unexpected token ';'\n    const x = ;\n              ^\n`)
      expect(exec.stderr).toContain(installed('dsh', 'dist', 'vendor', 'acorn.cjs'))
    } finally {
      fs.rmSync(plugin)
      fs.rmSync(config)
    }
    const [command, ...args] = hidden([installed('.bin', 'dsh'), 'mcp', '--otel'])
    const transport = new StdioClientTransport({ command, args, cwd: project, env: { ...cleanEnv(), OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'installed-dsh' }, stderr: 'pipe' })
    let stderr = ''
    transport.stderr?.on('data', (chunk) => (stderr += chunk))
    const client = new Client({ name: 'pack-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      await client.callTool({ name: 'ls', arguments: {} })
    } finally {
      await client.close()
    }
    // the console exporter prints each span on stdout, which the MCP transport owns: dsh sends it to stderr
    await expect.poll(() => stderr, { timeout: 10_000 }).toMatch(/name: 'execute_tool ls'/)
    expect(stderr).toContain("'service.name': 'installed-dsh'")
  }, 180_000)

  it('dsh setup from the installed package writes a server command that runs that package (node and its bin by absolute path)', () => {
    const home = path.join(work, 'setup-home')
    fs.mkdirSync(home, { recursive: true })
    const setup = run([installed('.bin', 'dsh'), 'setup', 'codex'], 120_000, project, { HOME: home })
    expect(setup.status, setup.stderr).toBe(0)
    const config = fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8')
    const bin = installed('dsh', 'bin', 'dsh.cjs')
    expect(config).toContain(`command = ${JSON.stringify(process.execPath)}`)
    expect(config).toContain(`args = [${JSON.stringify(bin)}, "mcp"]`)
    // the command as the client will start it, with the repository hidden
    const started = run([process.execPath, bin, '--version'], 120_000, project, { HOME: home })
    expect(started.status, started.stderr).toBe(0)
  }, 180_000)

  it.skipIf(skipWhen(backend === undefined, 'the installed launcher tamper test', 'no sandbox backend can run here'))('an installed launcher changed after packing is refused by both backends: confinement fails closed', () => {
    fs.appendFileSync(installed('@dsh/sandbox', 'native', target, 'landlock-run'), '\0')
    const demo = run(['npx', '--no-install', 'dsh', 'demo'])
    expect(demo.stdout).toMatch(/1\. a shell command runs confined.*\n.*\n\s+SANDBOX_UNAVAILABLE bash: no sandbox backend can confine the command/)
    expect(demo.stdout).not.toMatch(/ok hello from Linux/)
    expect(demo.status).not.toBe(0)
  }, 180_000)
})

describe('a plugin scaffolded by dsh new-plugin installs with npm and passes its own test, asking the registry for none of dsh\'s packages', () => {
  /** `npm install` then `npm test` in a scaffold: dsh and cordis are linked by file: path, the rest comes from the npm cache */
  function installAndTest(plugin: string, runner: (argv: string[], timeout: number, cwd: string) => ReturnType<typeof spawnSync>) {
    const install = runner(['npm', 'install', '--prefer-offline', '--no-audit', '--no-fund'], 300_000, plugin)
    // before: dsh was a registry range, and npm install failed with 404 Not Found - GET …/dsh
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0)
    const test = runner(['npm', 'test'], 300_000, plugin)
    expect(test.status, `${test.stdout}\n${test.stderr}`).toBe(0)
    expect(test.stdout).toMatch(/# pass 4\n# fail 0/)
  }

  it('from the installed tarballs: npx dsh new-plugin, npm install, npm test; then it loads from its dsh.yml in dsh exec and dsh inspect', () => {
    const made = run(['npx', '--no-install', 'dsh', 'new-plugin', 'dsh-plugin-greeter'])
    expect(made.status, made.stderr).toBe(0)
    expect(made.stdout).toContain('wrote dsh-plugin-greeter (plugin greeter, tool greeter_hello)')
    const plugin = path.join(project, 'dsh-plugin-greeter')
    const manifest = JSON.parse(fs.readFileSync(path.join(plugin, 'package.json'), 'utf8'))
    const dshVersion = workspaces.find((w) => w.manifest.name === 'dsh')!.manifest.version
    expect(manifest.peerDependencies).toEqual({ cordis: expect.any(String), dsh: `^${dshVersion}` })
    // the very copies the project installed, by their real paths
    expect(manifest.devDependencies).toMatchObject({ dsh: `file:${installed('dsh')}`, cordis: `file:${installed('cordis')}` })

    // the repository hidden: nothing resolves through the checkout
    installAndTest(plugin, run)
    expect(fs.realpathSync(path.join(plugin, 'node_modules', 'dsh'))).toBe(installed('dsh'))
    expect(fs.realpathSync(path.join(plugin, 'node_modules', 'cordis'))).toBe(installed('cordis'))

    const exec = run([installed('.bin', 'dsh'), 'exec', 'greeter_hello', '{"name":"world"}'], 120_000, plugin)
    expect(exec.status, exec.stderr).toBe(0)
    expect(exec.stderr).toContain(`config ${path.join(plugin, 'dsh.yml')}`)
    expect(exec.stdout).toContain('Hello, world!')
    const inspect = run([installed('.bin', 'dsh'), 'inspect', '--json'], 120_000, plugin)
    expect(inspect.status, inspect.stderr).toBe(0)
    const snapshot = JSON.parse(inspect.stdout)
    expect(snapshot.tools).toContainEqual(expect.objectContaining({ name: 'greeter_hello', owner: 'greeter' }))
    expect(snapshot.plugins).toContainEqual(expect.objectContaining({ name: 'greeter', spec: './lib/src/index.js', status: 'active' }))
  }, 600_000)

  it('from a checkout: the checkout\'s dsh new-plugin writes, outside the repository, a package linked to the checkout that installs and passes', () => {
    const outside = fs.mkdtempSync(path.join(work, 'from-checkout-'))
    const made = spawnSync(process.execPath, [path.join(root, 'core/dsh/lib/cli.js'), 'new-plugin', 'dsh-plugin-counter'], { cwd: outside, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 })
    expect(made.status, made.stderr).toBe(0)
    const plugin = path.join(outside, 'dsh-plugin-counter')
    const manifest = JSON.parse(fs.readFileSync(path.join(plugin, 'package.json'), 'utf8'))
    expect(manifest.devDependencies).toMatchObject({ dsh: `file:${path.join(root, 'core/dsh')}`, cordis: `file:${fs.realpathSync(path.join(root, 'node_modules/cordis'))}` })
    const inOutside = (argv: string[], timeout: number, cwd: string) => {
      const [command, ...args] = argv
      return spawnSync(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout })
    }
    const status = () => spawnSync('git', ['status', '--porcelain', '--ignored', 'core/dsh'], { cwd: root, encoding: 'utf8' }).stdout
    const before = status()
    installAndTest(plugin, inOutside)
    // the link is the checkout itself, which npm left as it was
    expect(fs.realpathSync(path.join(plugin, 'node_modules', 'dsh'))).toBe(path.join(root, 'core/dsh'))
    expect(status()).toBe(before)
  }, 600_000)
})
