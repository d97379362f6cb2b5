/**
 * The CLI's bundle (core/dsh/dist, made by `npm run build`): bin/dsh.cjs (the
 * package's bin; bin/dsh.js runs it) runs it — one CommonJS script, dist/cli.cjs,
 * compiled with the code cache beside it by dist/start.cjs, with no ES module
 * loaded — and a plugin from outside it, loaded by its path or by a package name,
 * shares the kernel's one copy of cordis, @dsh/kernel and the bundled plugins,
 * as it does when the CLI runs from lib/.
 */
import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dshEnv } from '../cache-home.js'

const root = join(import.meta.dirname, '../..')
const BIN = join(root, 'core/dsh/bin/dsh.cjs')
// the same command as an ES module, for whoever runs that path
const BIN_ESM = join(root, 'core/dsh/bin/dsh.js')
const LIB = join(root, 'core/dsh/lib/cli.js')
const BUNDLE = join(root, 'core/dsh/dist/start.cjs')
const FIXTURE = join(root, 'test/fixtures/plugins/shared-copies.mjs')
const VENDOR_TRACE = join(root, 'test/fixtures/vendor-trace.cjs')

let dir: string

beforeAll(() => {
  if (statSync(BUNDLE, { throwIfNoEntry: false }) === undefined) throw new Error(`${BUNDLE} is missing: run \`npm run build\` before these tests`)
  dir = mkdtempSync(join(tmpdir(), 'dsh-bundle-'))
  // a plugin package found by its name from the config's directory, outside the repository and the bundle
  const pkg = join(dir, 'node_modules', 'dsh-plugin-shared-copies')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'dsh-plugin-shared-copies', version: '1.0.0', type: 'module', exports: './index.js' }))
  writeFileSync(join(pkg, 'index.js'), `export * from ${JSON.stringify(pathToFileURL(FIXTURE).href)}\n`)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

interface Copies {
  cordis: boolean
  kernel: boolean
  libKernel: boolean
  workspaceTools: boolean
  kernelUrl: string
}

function copies(cli: string, spec: string, workspaceTools = 'workspace-tools'): Copies {
  const config = join(dir, `${spec.replace(/\W/g, '_')}.yml`)
  writeFileSync(config, `dataDir: ${join(dir, '.dsh')}\nplugins:\n  ${JSON.stringify(workspaceTools)}:\n    workspace: ${dir}\n  ${JSON.stringify(spec)}: {}\n`)
  const run = spawnSync(process.execPath, [cli, 'exec', 'shared_copies', '{}', '--config', config, '--json'], { cwd: dir, env: dshEnv(), encoding: 'utf8', timeout: 60_000 })
  expect(run.status, run.stderr).toBe(0)
  return JSON.parse(run.stdout).result.value
}

describe('the CLI bundle', () => {
  for (const [how, spec] of [['by its path', FIXTURE], ['by a package name outside the bundle', 'dsh-plugin-shared-copies']] as const) {
    it(`bin/dsh.cjs runs the bundle; a plugin loaded ${how} gets the bundle's copies of the shared packages`, () => {
      const got = copies(BIN, spec)
      expect(got).toMatchObject({ cordis: true, kernel: true, workspaceTools: true })
      // resolved through the bundle's hook to its own module for @dsh/kernel
      expect(got.kernelUrl).toBe(pathToFileURL(join(root, 'core/dsh/dist/shared/dsh-kernel.js')).href)
      // the control: @dsh/kernel's lib/ imported by its path is another copy, which the checks above tell apart
      expect(got.libKernel).toBe(false)
    })

    it(`lib/cli.js (no bundle) still runs; a plugin loaded ${how} shares lib/'s copies`, () => {
      const got = copies(LIB, spec)
      expect(got).toMatchObject({ cordis: true, kernel: true, libKernel: true, workspaceTools: true })
      expect(got.kernelUrl).toBe(pathToFileURL(join(root, 'core/kernel/lib/index.js')).href)
    })
  }

  it('the repository\'s `npx dsh` (node_modules/.bin/dsh, linked by npm from the lock) is bin/dsh.cjs', () => {
    expect(realpathSync(join(root, 'node_modules/.bin/dsh'))).toBe(realpathSync(BIN))
  })

  it('keeps the name each class was written with (esbuild keepNames), where it renamed the binding', () => {
    // esbuild renames a binding that collides in the one bundle (`Server` → `Server2`); without keepNames
    // the class's `.name` is the new binding's, and code comparing `error.name` or `constructor.name` breaks
    const script = readFileSync(join(root, 'core/dsh/dist/cli.cjs'), 'utf8')
    const renamed = [...script.matchAll(/([A-Za-z_$][\w$]*?)(\d+)=class\b[^{]*\{/g)]
    expect(renamed.length).toBeGreaterThan(5)
    const unnamed = renamed
      .filter((m) => !/^(static\{__name\d*\(this,"[^"]+"\)\})+/.test(script.slice(m.index! + m[0].length, m.index! + m[0].length + 400)))
      .map((m) => m[1] + m[2])
    expect(unnamed).toEqual([])
  })

  it('bin/dsh.js, the ES module, runs the same bundle', () => {
    expect(copies(BIN_ESM, FIXTURE)).toMatchObject({ cordis: true, kernel: true, workspaceTools: true, libKernel: false, kernelUrl: pathToFileURL(join(root, 'core/dsh/dist/shared/dsh-kernel.js')).href })
  })

  for (const bin of ['dsh.cjs', 'dsh.js']) {
    it(`bin/${bin} without a dist/ beside it runs lib/: a plugin gets lib/'s copies`, () => {
      // a package directory holding bin/ (both files, as packed; with dsh's package.json, so dsh.js is an ES module) and lib/ (linked), and no dist/
      const pkg = join(dir, `no-bundle-${bin}`)
      mkdirSync(join(pkg, 'bin'), { recursive: true })
      copyFileSync(BIN, join(pkg, 'bin', 'dsh.cjs'))
      copyFileSync(BIN_ESM, join(pkg, 'bin', 'dsh.js'))
      copyFileSync(join(root, 'core/dsh/package.json'), join(pkg, 'package.json'))
      symlinkSync(join(root, 'core/dsh/lib'), join(pkg, 'lib'))
      const got = copies(join(pkg, 'bin', bin), FIXTURE)
      expect(got).toMatchObject({ cordis: true, kernel: true, libKernel: true, workspaceTools: true })
      expect(got.kernelUrl).toBe(pathToFileURL(join(root, 'core/kernel/lib/index.js')).href)
    })
  }

  it('a bundled plugin named by its package name (@dsh/workspace-tools) is the bundle\'s module too', () => {
    expect(copies(BIN, FIXTURE, '@dsh/workspace-tools')).toMatchObject({ cordis: true, kernel: true, workspaceTools: true, libKernel: false })
  })

  describe("the script's code cache", () => {
    // a dsh package of its own (bin/, a copy of dist/, lib/ and node_modules linked), whose cache each case changes
    const packageCopy = (): string => {
      const pkg = mkdtempSync(join(dir, 'package-'))
      mkdirSync(join(pkg, 'bin'))
      copyFileSync(BIN, join(pkg, 'bin', 'dsh.cjs'))
      copyFileSync(join(root, 'core/dsh/package.json'), join(pkg, 'package.json'))
      cpSync(join(root, 'core/dsh/dist'), join(pkg, 'dist'), { recursive: true })
      symlinkSync(join(root, 'core/dsh/lib'), join(pkg, 'lib'))
      symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'))
      return pkg
    }
    // each in a process of its own: V8 keeps what it compiled, so a second compile in one process says nothing
    const start = (pkg: string, flags: string[] = []): string => {
      const run = spawnSync(process.execPath, [...flags, join(pkg, 'bin', 'dsh.cjs'), '--version'], { cwd: pkg, encoding: 'utf8', env: dshEnv({ NODE_DEBUG: 'dsh-bundle' }), timeout: 60_000 })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/^dsh \d+\.\d+\.\d+/)
      return /code cache ([^\n]+)/.exec(run.stderr)?.[1] ?? `no report in ${run.stderr}`
    }
    const script = (pkg: string) => join(pkg, 'dist', 'cli.cjs')

    it('is used as the build wrote it in the checkout\'s dist/', () => {
      expect(start(join(root, 'core/dsh'))).toBe('used')
    }, 60_000)

    it('made at another path (V8 would name that path in stack traces): not used, made anew at exit, then used', () => {
      const pkg = packageCopy()
      expect(start(pkg)).toBe('elsewhere')
      expect(start(pkg)).toBe('used')
    }, 60_000)

    it('V8 data that is not V8\'s, under the right digests: rejected, the script compiled without it', () => {
      const pkg = packageCopy()
      start(pkg)
      const cache = readFileSync(`${script(pkg)}.cache`)
      writeFileSync(`${script(pkg)}.cache`, Buffer.concat([cache.subarray(0, 64), Buffer.alloc(cache.length - 64, 7)]))
      expect(start(pkg)).toBe('rejected')
    }, 60_000)

    it('a cache made from another source is never given to V8', () => {
      const pkg = packageCopy()
      appendFileSync(script(pkg), '\n// changed\n')
      expect(start(pkg)).toBe('stale')
    }, 60_000)

    it('without a cache the script is compiled from its source', () => {
      const pkg = packageCopy()
      rmSync(`${script(pkg)}.cache`)
      expect(start(pkg)).toBe('none')
    }, 60_000)

    it('with source maps on, node requires the script (and reads its map) instead; a plugin from outside still shares its copies', () => {
      expect(start(packageCopy(), ['--enable-source-maps'])).toBe('unused (source maps)')
      const config = join(dir, 'source-maps.yml')
      writeFileSync(config, `dataDir: ${join(dir, '.dsh')}\nplugins:\n  workspace-tools:\n    workspace: ${dir}\n  ${JSON.stringify(FIXTURE)}: {}\n`)
      const run = spawnSync(process.execPath, ['--enable-source-maps', BIN, 'exec', 'shared_copies', '{}', '--config', config, '--json'], { cwd: dir, env: dshEnv(), encoding: 'utf8', timeout: 60_000 })
      expect(run.status, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout).result.value).toMatchObject({ cordis: true, kernel: true, workspaceTools: true, libKernel: false, kernelUrl: pathToFileURL(join(root, 'core/dsh/dist/shared/dsh-kernel.js')).href })
    }, 60_000)
  })

  describe('Ajv, yaml, acorn and the OpenTelemetry SDK stay in dist/vendor/ until a command needs them', () => {
    const vendor = (name: string) => join(root, 'core/dsh/dist/vendor', name)
    const traced = (trace: string): string[] => JSON.parse(readFileSync(trace, 'utf8'))

    it('dsh mcp with the default set answers tools/list without loading either', async () => {
      const cwd = mkdtempSync(join(dir, 'mcp-'))
      const trace = join(cwd, 'trace.json')
      const child = spawn(process.execPath, ['--require', VENDOR_TRACE, BIN, 'mcp'], { cwd, env: dshEnv({ DSH_TEST_VENDOR_TRACE: trace, NODE_DEBUG: 'esm' }), stdio: ['pipe', 'pipe', 'pipe'] })
      let stderr = ''
      // the ES modules node loaded by the first answer (NODE_DEBUG=esm prints each as it stores it)
      let modulesBeforeAnswer: string[] | undefined
      // the vendored files read by then: once the client has listed the tools, the kernel compiles
      // the argument checks while idle (tools/idle), which loads Ajv, so the trace at exit says nothing
      let vendorBeforeAnswer: string[] | undefined
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const tools = await new Promise<unknown[]>((resolve, reject) => {
        let buffered = ''
        child.on('exit', (code) => reject(new Error(`dsh mcp exited ${code} before answering: ${stderr}`)))
        child.stdout.on('data', (chunk) => {
          buffered += chunk
          const lines = buffered.split('\n')
          buffered = lines.pop()!
          for (const line of lines) {
            const message = JSON.parse(line)
            if (message.id === 1) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`)
            if (message.id === 2) {
              modulesBeforeAnswer = [...stderr.matchAll(/Storing (file:\/\/\S+)/g)].map((match) => match[1])
              vendorBeforeAnswer = traced(trace)
              resolve(message.result.tools)
            }
          }
        })
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-spec', version: '1' } } })}\n`)
      })
      expect(tools.length).toBeGreaterThan(0)
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.stdin.end()
      expect(await exited, stderr).toBe(0)
      expect(vendorBeforeAnswer).toEqual([])
      // the code came from the script, run by bin/dsh.cjs and dist/start.cjs: node's ES module loader loaded nothing
      expect(modulesBeforeAnswer).toEqual([])
      // and the script holds none of them (its source map lists every module bundled in it) but
      // Ajv's deep-equal helper, which the validators it compiles call (a one-line module), and
      // OpenTelemetry's API, which the otel plugin calls
      // (a checkout's map names node_modules/ from dist/; after `npm pack` rewrote it, as installed: ../../<name>/)
      const sources: string[] = JSON.parse(readFileSync(join(root, 'core/dsh/dist/cli.cjs.map'), 'utf8')).sources
      const packageFile = (source: string) => source.replace(/^(?:\.\.\/)+(?:node_modules\/)?/, '')
      expect(sources.map(packageFile).filter((file) => /^(?:ajv|ajv-formats|yaml|acorn)\//.test(file))).toEqual(['ajv/lib/runtime/equal.ts'])
      expect(sources.map(packageFile).filter((file) => file.startsWith('@opentelemetry/') && !file.startsWith('@opentelemetry/api/'))).toEqual([])
      expect(sources.map(packageFile).some((file) => file.startsWith('@modelcontextprotocol/sdk/'))).toBe(true)
    }, 60_000)

    it('a vendored file runs with the code cache built beside it, and as before without a usable one', () => {
      const copy = mkdtempSync(join(dir, 'vendor-'))
      const file = join(copy, 'yaml.cjs')
      copyFileSync(vendor('yaml.cjs'), file)
      // each in a process of its own: V8 keeps what it compiled, so a second compile in one process says nothing
      const runIn = (): string => {
        const script = `import { runVendored } from ${JSON.stringify(pathToFileURL(join(root, 'core/dsh/scripts/vendor-load.js')).href)}
const { exports, cache } = runVendored(${JSON.stringify(file)})
const yaml = exports[Object.keys(exports).find((key) => key.endsWith('/yaml/dist/index.js'))]
process.stdout.write(JSON.stringify({ cache, parsed: yaml.parse('plugins:\\n  workspace-tools: {}\\n') }))`
        const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 })
        expect(result.status, result.stderr).toBe(0)
        const { cache, parsed } = JSON.parse(result.stdout)
        expect(parsed).toEqual({ plugins: { 'workspace-tools': {} } })
        return cache
      }
      expect(runIn()).toBe('none')
      // the build's cache, for this source but made at the build's path (which V8 would name in stack
      // traces): not used, the file compiled under its own path and its cache made anew at exit
      copyFileSync(vendor('yaml.cjs.cache'), `${file}.cache`)
      expect(runIn()).toBe('elsewhere')
      expect(readFileSync(`${file}.cache`).equals(readFileSync(vendor('yaml.cjs.cache')))).toBe(false)
      expect(runIn()).toBe('used')
      // V8 data that is not V8's, under the right digests: V8 rejects it, the file is compiled as without one
      const cache = readFileSync(`${file}.cache`)
      writeFileSync(`${file}.cache`, Buffer.concat([cache.subarray(0, 64), Buffer.alloc(cache.length - 64, 7)]))
      expect(runIn()).toBe('rejected')
      // a cache made from another source is never given to V8
      copyFileSync(vendor('yaml.cjs.cache'), `${file}.cache`)
      writeFileSync(file, `${readFileSync(vendor('yaml.cjs'), 'utf8')}\n// changed\n`)
      expect(runIn()).toBe('stale')
    }, 60_000)

    it('dsh exec reads its config with the vendored yaml and checks arguments with the vendored Ajv', () => {
      const cwd = mkdtempSync(join(dir, 'exec-'))
      const config = join(cwd, 'dsh.yml')
      writeFileSync(config, `dataDir: ${join(cwd, '.dsh')}\nplugins:\n  workspace-tools:\n    workspace: ${cwd}\n`)
      const run = (args: string) => {
        const trace = join(cwd, `trace-${args.length}.json`)
        const result = spawnSync(process.execPath, ['--require', VENDOR_TRACE, BIN, 'exec', 'ls', args, '--config', config, '--json'], { cwd, encoding: 'utf8', env: dshEnv({ DSH_TEST_VENDOR_TRACE: trace }), timeout: 60_000 })
        return { ...result, loaded: traced(trace) }
      }
      const good = run(JSON.stringify({ path: cwd }))
      expect(good.status, good.stderr).toBe(0)
      expect(good.loaded.sort()).toEqual([vendor('ajv.cjs'), vendor('yaml.cjs')])
      // Ajv from the vendored file really validates: a path that is not a string is refused
      const bad = run(JSON.stringify({ path: 5 }))
      expect(bad.status).not.toBe(0)
      expect(JSON.parse(bad.stdout).result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', message: expect.stringMatching(/path.*must be string/) } })
    }, 60_000)
  })
})
