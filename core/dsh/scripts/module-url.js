/**
 * Part of the bundle (scripts/build-bundle.js): a module the bundle keeps in
 * dist/vendor/ (vendored), and the URL a bundled module of a
 * workspace package had in its package's lib/, for what that module finds
 * beside itself. A package is found the way Node finds it from dsh, through
 * the packages that depend on it (`via`), as the unbundled lib/ would.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { loadVendored } from './vendor-load.js'

const roots = new Map()

/** The directory of the dsh package this bundle belongs to (the first package.json named dsh above it). */
function dshRoot() {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (true) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'dsh') return dir
    const up = dirname(dir)
    if (up === dir) throw new Error(`dsh's bundle at ${fileURLToPath(import.meta.url)} lies in no dsh package`)
    dir = up
  }
}

function rootOf(name, via) {
  let root = roots.get(name)
  if (root) return root
  if (name === 'dsh') root = dshRoot()
  else {
    const parent = via.length ? rootOf(via.at(-1), via.slice(0, -1)) : rootOf('dsh', [])
    try {
      root = dirname(createRequire(join(parent, 'package.json')).resolve(`${name}/package.json`))
    } catch (error) {
      throw new Error(`dsh's bundle cannot find the package ${name} from ${parent}: ${error.message}`)
    }
  }
  roots.set(name, root)
  return root
}

/** `import.meta.url` of `within` (a path inside package `name`, reached from dsh through `via`). */
export function moduleUrl(name, within, via) {
  return pathToFileURL(join(rootOf(name, via), within)).href
}

const vendor = new Map()

/**
 * A module the bundle keeps in a CommonJS file of its own (dist/vendor/<group>.cjs, which the
 * build writes with it), by its path from dsh's package: the file is read and compiled (with its
 * code cache: vendor-load.js) on the first such require, so a command that never needs Ajv or yaml
 * loads neither.
 */
export function vendored(group, key) {
  let exports = vendor.get(group)
  if (!exports) vendor.set(group, (exports = loadVendored(join(rootOf('dsh', []), 'dist', 'vendor', `${group}.cjs`))))
  if (!Object.hasOwn(exports, key)) throw new Error(`dsh's bundle: dist/vendor/${group}.cjs holds no ${key} (rebuild with npm run build)`)
  return exports[key]
}
