/**
 * `dsh new-plugin` as a command: what it writes, and what it refuses (a
 * directory that is not empty, a name npm would not take, no directory). The
 * scaffold building, passing its own test and loading from its dsh.yml outside
 * the repository is test/e2e/pack-install.spec.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { runCli } from '../e2e/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-new-plugin-'))
  dirs.push(dir)
  return dir
}

it('writes the package: plugin, test, dsh.yml, README; dsh and cordis as peers at this dsh\'s version, and as dev dependencies on this dsh\'s own copies', async () => {
  const dir = scratch()
  const run = await runCli(['new-plugin', 'dsh-plugin-audit-note'], dir)
  expect(run.code, run.stderr).toBe(0)
  const plugin = join(dir, 'dsh-plugin-audit-note')
  expect(readdirSync(plugin, { recursive: true }).map(String).sort()).toEqual(['.gitignore', 'README.md', 'dsh.yml', 'package.json', 'src', 'src/index.ts', 'test', 'test/plugin.test.ts', 'tsconfig.json'])
  const manifest = JSON.parse(readFileSync(join(plugin, 'package.json'), 'utf8'))
  const dsh = JSON.parse(readFileSync(join(import.meta.dirname, '../../core/dsh/package.json'), 'utf8'))
  expect(manifest).toMatchObject({ name: 'dsh-plugin-audit-note', type: 'module', peerDependencies: { dsh: `^${dsh.version}`, cordis: `^${dsh.dependencies.cordis}` } })
  // dev dependencies on this very dsh and its cordis, by file: path: dsh's packages are not on the registry
  const repo = join(import.meta.dirname, '../..')
  expect(manifest.devDependencies).toMatchObject({ dsh: `file:${join(repo, 'core/dsh')}`, cordis: `file:${realpathSync(join(repo, 'node_modules/cordis'))}` })
  expect(readFileSync(join(plugin, 'README.md'), 'utf8')).toContain(`by \`file:\` path (\`${join(repo, 'core/dsh')}\``)
  expect(Object.keys(manifest.exports['.'])[0]).toBe('types')
  const source = readFileSync(join(plugin, 'src/index.ts'), 'utf8')
  expect(source).toContain("export const name = 'audit-note'")
  expect(source).toContain("export const inject = ['tools']")
  expect(source).toContain("name: 'audit-note_hello'")
  expect(readFileSync(join(plugin, 'dsh.yml'), 'utf8')).toContain('  ./lib/src/index.js:\n')
})

it('--name sets the package name; a scoped name gives the plugin its bare name', async () => {
  const dir = scratch()
  const run = await runCli(['new-plugin', 'here', '--name', '@acme/dsh-plugin-lint'], dir)
  expect(run.code, run.stderr).toBe(0)
  expect(run.stdout).toContain('wrote @acme/dsh-plugin-lint (plugin lint, tool lint_hello)')
})

it('refuses a directory that is not empty and writes nothing into it', async () => {
  const dir = scratch()
  mkdirSync(join(dir, 'taken'))
  writeFileSync(join(dir, 'taken', 'notes.txt'), 'mine')
  const run = await runCli(['new-plugin', 'taken'], dir)
  expect(run.code).toBe(2)
  expect(run.stderr).toBe(`dsh new-plugin: ${join(dir, 'taken')} is not empty (it holds notes.txt); new-plugin writes only into a new or empty directory\n`)
  expect(readdirSync(join(dir, 'taken'))).toEqual(['notes.txt'])
})

it('refuses a name npm would not take, naming where it came from, and a missing directory', async () => {
  const dir = scratch()
  const bad = await runCli(['new-plugin', 'My Plugin'], dir)
  expect(bad.code).toBe(2)
  expect(bad.stderr).toMatch(/^dsh new-plugin: the directory's name "My Plugin" is not a valid npm package name .*pass --name <package-name>\n$/)
  const flag = await runCli(['new-plugin', 'ok', '--name', 'UPPER'], dir)
  expect(flag.stderr).toMatch(/--name "UPPER" is not a valid npm package name/)
  expect(readdirSync(dir)).toEqual([])
  const none = await runCli(['new-plugin'], dir)
  expect(none.code).toBe(2)
  expect(none.stderr).toMatch(/expected one directory, got 0 arguments/)
})
