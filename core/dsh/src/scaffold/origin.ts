/**
 * Where the dsh that writes a scaffold lives, so the scaffold can depend on
 * that very copy: the package directory (a checkout's `core/dsh`, or an
 * installed `node_modules/dsh`) and the cordis it runs on. dsh's packages are
 * not on the registry, so a version range would send `npm install` there to a
 * 404; a `file:` dependency on a directory is a link npm makes without asking
 * any registry, and the linked package finds its own dependencies where they
 * already are (beside it, or in the checkout's `node_modules`).
 */
import { existsSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface ScaffoldOrigin {
  /** the real path of the dsh package directory that writes the scaffold */
  dshDir: string
  /** the real path of the cordis package that dsh resolves, if found */
  cordisDir: string | undefined
}

/** The first `node_modules/<name>` Node's resolution would find from `dir` upwards. */
function packageDirFrom(dir: string, name: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate)
    if (dirname(at) === at) return undefined
  }
}

export function scaffoldOrigin(dshPackageJson: URL): ScaffoldOrigin {
  const dshDir = realpathSync(dirname(fileURLToPath(dshPackageJson)))
  return { dshDir, cordisDir: packageDirFrom(dshDir, 'cordis') }
}
