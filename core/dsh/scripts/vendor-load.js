/**
 * Part of the bundle (scripts/build-bundle.js): running a self-contained CommonJS file of dist/ —
 * the CLI's script dist/cli.cjs, or dist/vendor/<group>.cjs — with the V8 code cache the build
 * wrote beside it (<file>.cache: the SHA-256 of the source it was made from, then V8's data, made
 * after the build ran the file's usual first work). The cache is given to V8 only for that very
 * source, and V8 itself rejects it for another V8 version or other flags: the file is then
 * compiled as it would be without one. The cache also holds the SHA-256 of the path it was made at:
 * V8 (Node 20) keeps the script's name from the cache, so code run from a cache made elsewhere (the
 * build's directory, another machine's checkout) would name, in every stack trace, a file that
 * does not exist here. Such a cache is not used; the file is compiled under its own path, and its
 * cache made anew at exit where the directory is writable (the first run of an installed copy). The cache lies beside the code, written by the same build
 * (cached code runs unchecked, so it is never read from anywhere another user could write).
 */
import { isAscii } from 'node:buffer'
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import vm from 'node:vm'

const DIGEST_BYTES = 32

/** The SHA-256 of a source, given as its bytes (what the file holds) or as its text. */
const digest = (source) => createHash('sha256').update(source).digest()

/**
 * What the file's `import()` calls are, as the build rewrote them (`$dshI$(...)`, as long as the
 * word `import`, so the source map still fits; the script's first line binds it): node's ES
 * module loader, from this module — in dist/, beside the file — handed to the script as
 * `module.dshImport`. A script run through vm cannot `import()` itself on Node 20 once compiled
 * from a code cache (the deserialized code loses the script's dynamic import callback).
 */
export const DYNAMIC_IMPORT = '$dshI$'
const dynamicImport = (specifier) => import(specifier)

/** The file's source as CommonJS code wraps it (one line: the file's lines keep their numbers). */
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`

/** The file compiled, with V8's `cachedData` when given. */
export const compile = (file, source, cachedData) => new vm.Script(wrap(source), { filename: file, cachedData })

/** The file compiled (with `cachedData` when given) and run as CommonJS: its script and its exports. */
function run(file, source, cachedData) {
  const script = compile(file, source, cachedData)
  const module = { exports: {}, filename: file, dshImport: dynamicImport }
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
  return { script, exports: module.exports }
}

/** The build's side: run the file, let `exercise` do its usual first work, and give the cache to write beside it. */
export function vendorCache(file, exercise) {
  const source = readFileSync(file, 'utf8')
  const { script, exports } = run(file, source)
  exercise(exports)
  return cacheOf(script, source, file)
}

/** What the build writes as `<file>.cache` for `script`, compiled from `source` as `file`: the digests of both, then V8's data for what ran so far. */
export function cacheOf(script, source, file) {
  return Buffer.concat([digest(source), digest(file), script.createCachedData()])
}

/** `<file>.cache` made anew from what ran, written whole (a temporary file renamed) or not at all. */
function refreshAtExit(file, script, source) {
  process.once('exit', () => {
    const temporary = `${file}.cache.${process.pid}`
    try {
      writeFileSync(temporary, cacheOf(script, source, file))
      renameSync(temporary, `${file}.cache`)
    } catch {
      // a directory this user cannot write (a shared install): compiled from source at each start
    }
  })
}

/**
 * `<file>.cache` if it was made from this source (its bytes, or its text) at this path: its V8 data
 * (else undefined), and what was found (none, stale, elsewhere, fresh).
 */
export function cacheFor(file, source) {
  let cache
  try {
    cache = readFileSync(`${file}.cache`)
  } catch {
    // no cache (a build without one, or removed): compiled from the source alone
    return { state: 'none' }
  }
  if (cache.length <= 2 * DIGEST_BYTES || !cache.subarray(0, DIGEST_BYTES).equals(digest(source))) return { state: 'stale' }
  if (!cache.subarray(DIGEST_BYTES, 2 * DIGEST_BYTES).equals(digest(file))) return { state: 'elsewhere' }
  return { state: 'fresh', data: cache.subarray(2 * DIGEST_BYTES) }
}

/**
 * The file run, with its cache where one was made from this source; `cache` says what became of
 * it: used, rejected by V8 (another version or flags), stale (made from another source), elsewhere
 * (made at another path: made anew at exit) or none.
 * With source maps on (`--enable-source-maps`), the file is required instead, without its cache:
 * node's CommonJS loader reads the source map beside it (vm does not), so a stack trace names
 * the sources.
 */
export function runVendored(file) {
  if (process.sourceMapsEnabled) return { exports: createRequire(file)(file), cache: 'unused (source maps)' }
  // the digest of the bytes read, not of the text (which would be encoded again to be hashed)
  const bytes = readFileSync(file)
  // ASCII (as the build writes dist/cli.cjs) is read as latin1, the same text, without UTF-8's decoding
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')
  const found = cacheFor(file, bytes)
  const { script, exports } = run(file, source, found.data)
  if (found.state === 'elsewhere') refreshAtExit(file, script, bytes)
  return { script, source, exports, cache: found.state !== 'fresh' ? found.state : script.cachedDataRejected ? 'rejected' : 'used' }
}
