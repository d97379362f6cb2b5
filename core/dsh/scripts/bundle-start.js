/**
 * dist/cli.js, the bundle's entry (scripts/build-bundle.js builds it from this file): runs the
 * CLI's script dist/cli.cjs — one CommonJS script holding the CLI, its services and its bundled
 * plugins — compiled with the V8 code cache the build wrote beside it (vendor-load.js: checked
 * against the script's SHA-256, and by V8; without a usable one the script is compiled from its
 * source). No ES module loader on the start path: node compiles one script, from cached code for
 * every function a first command ran when the build trained the cache.
 *
 * `NODE_DEBUG=dsh-bundle` prints what became of the cache.
 */
import { debuglog } from 'node:util'
import { fileURLToPath } from 'node:url'
import { runVendored } from './vendor-load.js'

const file = fileURLToPath(new URL('./cli.cjs', import.meta.url))
const { cache } = runVendored(file)
debuglog('dsh-bundle')(`${file}: code cache ${cache}`)
