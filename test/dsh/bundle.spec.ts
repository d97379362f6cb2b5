/**
 * The CLI's bundle (core/dsh/dist, made by `npm run build`): bin/dsh.js runs
 * it, and a plugin from outside it — loaded by its path or by a package name —
 * shares the kernel's one copy of cordis, @dsh/kernel and the bundled plugins,
 * as it does when the CLI runs from lib/.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '../..')
const BIN = join(root, 'core/dsh/bin/dsh.js')
const LIB = join(root, 'core/dsh/lib/cli.js')
const BUNDLE = join(root, 'core/dsh/dist/cli.js')
const FIXTURE = join(root, 'test/fixtures/plugins/shared-copies.mjs')

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
  const run = spawnSync(process.execPath, [cli, 'exec', 'shared_copies', '{}', '--config', config, '--json'], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  expect(run.status, run.stderr).toBe(0)
  return JSON.parse(run.stdout).result.value
}

describe('the CLI bundle', () => {
  for (const [how, spec] of [['by its path', FIXTURE], ['by a package name outside the bundle', 'dsh-plugin-shared-copies']] as const) {
    it(`bin/dsh.js runs the bundle; a plugin loaded ${how} gets the bundle's copies of the shared packages`, () => {
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

  it('bin/dsh.js without a dist/ beside it runs lib/: a plugin gets lib/\'s copies', () => {
    // a package directory holding bin/dsh.js and lib/ (linked), and no dist/
    const pkg = join(dir, 'no-bundle')
    mkdirSync(join(pkg, 'bin'), { recursive: true })
    copyFileSync(BIN, join(pkg, 'bin', 'dsh.js'))
    symlinkSync(join(root, 'core/dsh/lib'), join(pkg, 'lib'))
    const got = copies(join(pkg, 'bin', 'dsh.js'), FIXTURE)
    expect(got).toMatchObject({ cordis: true, kernel: true, libKernel: true, workspaceTools: true })
    expect(got.kernelUrl).toBe(pathToFileURL(join(root, 'core/kernel/lib/index.js')).href)
  })

  it('a bundled plugin named by its package name (@dsh/workspace-tools) is the bundle\'s module too', () => {
    expect(copies(BIN, FIXTURE, '@dsh/workspace-tools')).toMatchObject({ cordis: true, kernel: true, workspaceTools: true, libKernel: false })
  })
})
