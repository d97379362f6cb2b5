/**
 * Writing a new plugin package into a directory that does not exist yet or
 * is empty; never over anything that is there.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { scaffoldFiles, type ScaffoldVersions } from './files.js'
import { pluginNames, type PluginNames } from './names.js'
import { scaffoldOrigin } from './origin.js'

/** What the scaffold depends on: this dsh (its version, and its directory), the cordis it runs on, schemastery's range. */
export function scaffoldVersions(dshPackageJson: URL): ScaffoldVersions {
  const pkg = JSON.parse(readFileSync(dshPackageJson, 'utf8')) as { version: string; dependencies: Record<string, string> }
  const { dshDir, cordisDir } = scaffoldOrigin(dshPackageJson)
  return { dsh: pkg.version, cordis: `^${pkg.dependencies.cordis}`, schemastery: `^${pkg.dependencies.schemastery}`, typescript: '~5.9.3', nodeTypes: '^20.19.0', dshDir, cordisDir }
}

export function writeScaffold(target: string, versions: ScaffoldVersions, packageName?: string): { dir: string; names: PluginNames; files: string[] } {
  const dir = resolve(target)
  const names = pluginNames(dir, packageName)
  let present: string[] = []
  try {
    present = readdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${dir}: ${(error as Error).message}`)
  }
  if (present.length) throw new Error(`${dir} is not empty (it holds ${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); new-plugin writes only into a new or empty directory`)
  const files = scaffoldFiles(names, versions)
  for (const [path, text] of Object.entries(files)) {
    const file = join(dir, path)
    mkdirSync(dirname(file), { recursive: true })
    // wx: never replace a file that appeared meanwhile
    writeFileSync(file, text, { flag: 'wx' })
  }
  return { dir, names, files: Object.keys(files) }
}
