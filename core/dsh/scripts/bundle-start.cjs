/**
 * dist/start.cjs, the bundle's entry (scripts/build-bundle.js builds it from this file): runs the
 * CLI's script dist/cli.cjs — one CommonJS script holding the CLI, its services and its bundled
 * plugins — compiled with the V8 code cache the build wrote beside it (vendor-load.js: checked
 * against the script's SHA-256, and by V8; without a usable one the script is compiled from its
 * source). CommonJS, as bin/dsh.cjs is: no ES module loader on the start path (node's costs a few
 * milliseconds before the first module runs); node compiles one script, from cached code for
 * every function a first command ran when the build trained the cache.
 *
 * `NODE_DEBUG=dsh-bundle` prints what became of the cache.
 */
'use strict'
const { debuglog } = require('node:util')
const { join } = require('node:path')
const { runVendored } = require('./vendor-load.js')

const file = join(__dirname, 'cli.cjs')
const { cache } = runVendored(file)
debuglog('dsh-bundle')(`${file}: code cache ${cache}`)
