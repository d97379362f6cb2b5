/**
 * Part of the bundle (scripts/build-bundle.js): running dist/vendor/<group>.cjs, a self-contained
 * CommonJS file, with the V8 code cache the build wrote beside it (<file>.cache: the SHA-256 of
 * the source it was made from, then V8's data, made after the build ran the file's usual first
 * work). The cache is given to V8 only for that very source, and V8 itself rejects it for another
 * V8 version or other flags: the file is then compiled as it would be without one.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import vm from 'node:vm'

const DIGEST_BYTES = 32

const digest = (source) => createHash('sha256').update(source).digest()

/** The file compiled (with `cachedData` when given) and run as CommonJS: its script and its exports. */
function run(file, source, cachedData) {
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData })
  const module = { exports: {} }
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
  return { script, exports: module.exports }
}

/** The build's side: run the file, let `exercise` do its usual first work, and give the cache to write beside it. */
export function vendorCache(file, exercise) {
  const source = readFileSync(file, 'utf8')
  const { script, exports } = run(file, source)
  exercise(exports)
  return Buffer.concat([digest(source), script.createCachedData()])
}

/**
 * The file run, with its cache where one was made from this source; `cache` says what became of
 * it: used, rejected by V8 (another version or flags), stale (made from another source) or none.
 */
export function runVendored(file) {
  const source = readFileSync(file, 'utf8')
  let cache
  try {
    cache = readFileSync(`${file}.cache`)
  } catch {
    // no cache (a build without one, or removed): compiled from the source alone
  }
  const fresh = cache !== undefined && cache.length > DIGEST_BYTES && cache.subarray(0, DIGEST_BYTES).equals(digest(source))
  const { script, exports } = run(file, source, fresh ? cache.subarray(DIGEST_BYTES) : undefined)
  return { exports, cache: cache === undefined ? 'none' : !fresh ? 'stale' : script.cachedDataRejected ? 'rejected' : 'used' }
}

/** The exports of the file (runVendored). */
export function loadVendored(file) {
  return runVendored(file).exports
}
