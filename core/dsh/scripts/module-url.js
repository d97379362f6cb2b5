/**
 * Part of the bundle (scripts/build-bundle.js), compiled into dist/cli.cjs: a module the bundle
 * keeps in dist/vendor/ (vendored), and the URL a bundled module of a workspace package had in
 * its package's lib/, for what that module finds beside itself. A package is found the way Node
 * finds it from dsh, through the packages that depend on it (`via`), as the unbundled lib/ would
 * — once a package, on the first use of one of its modules' `import.meta.url`, so a start reads
 * nothing for the packages whose modules never ask where they are.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { debuglog } from 'node:util'
import { runVendored } from './vendor-load.js'

// this code runs as dist/cli.cjs, which the build writes into dsh's own package directory
/* global __dirname */
const DIST = __dirname
const roots = new Map([['dsh', dirname(DIST)]])

function rootOf(name, via) {
  let root = roots.get(name)
  if (root) return root
  const parent = via.length ? rootOf(via.at(-1), via.slice(0, -1)) : roots.get('dsh')
  try {
    root = dirname(createRequire(join(parent, 'package.json')).resolve(`${name}/package.json`))
  } catch (error) {
    throw new Error(`dsh's bundle cannot find the package ${name} from ${parent}: ${error.message}`)
  }
  roots.set(name, root)
  return root
}

/**
 * What stands for `import.meta` in a bundled module of `within` (a path inside package `name`,
 * reached from dsh through `via`): its `url` is found on first use, then kept.
 */
export function moduleMeta(name, within, via) {
  let url
  return {
    get url() {
      return (url ??= pathToFileURL(join(rootOf(name, via), within)).href)
    },
  }
}

/**
 * `createRequire(import.meta.url)` of a bundled module (`meta`: moduleMeta's), made on its first
 * call: what the bundled modules use of it, a call and `resolve`.
 */
export function lazyRequire(meta) {
  let require
  const real = () => (require ??= createRequire(meta.url))
  const lazy = (id) => real()(id)
  lazy.resolve = (request, options) => real().resolve(request, options)
  return lazy
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
  if (!exports) {
    const file = join(DIST, 'vendor', `${group}.cjs`)
    const loaded = runVendored(file)
    // as the script's own line (bundle-start.cjs): NODE_DEBUG=dsh-bundle says which file ran, with what cache
    debuglog('dsh-bundle')(`${file}: code cache ${loaded.cache}`)
    vendor.set(group, (exports = loaded.exports))
  }
  if (!Object.hasOwn(exports, key)) throw new Error(`dsh's bundle: dist/vendor/${group}.cjs holds no ${key} (rebuild with npm run build)`)
  return exports[key]
}
