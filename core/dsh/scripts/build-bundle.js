#!/usr/bin/env node
/**
 * Builds dist/: the dsh CLI, its services and its bundled plugins as a few ES
 * module files (esbuild, splitting at dynamic imports), which bin/dsh.js loads
 * when they are there (decisions/2026-12-01-cli-bundle.md). Input is the built
 * lib/ of every package, so run it after `tsc -b` (the root build and dsh's
 * prepack do).
 *
 * - dist/cli.js, the entry: tells the CLI it runs from the bundle (the bundled
 *   plugins' loaders, the shared modules below), then imports lib/cli.js's code.
 * - dist/shared/<package>.js for cordis, schemastery, dsh, dsh/testing and every
 *   @dsh package the bundle holds: the bundle's copy, re-exported, which a
 *   plugin from outside the bundle is given for that package (one copy).
 * - dist/chunks/: the code, split where it is imported lazily (the MCP SDK,
 *   execa, OpenTelemetry, each plugin).
 * - dist/vendor/<group>.cjs: what our modules require lazily and no command
 *   needs to start (Ajv, yaml), one CommonJS file a group, compiled on the
 *   first require (VENDORED).
 *
 * `import.meta.url` in a bundled module of a workspace package is replaced by
 * the URL of its original file in lib/ (found from the installed package at
 * run time), so the files it reads beside itself — the launcher, the worker,
 * package.json, what it requires lazily (Ajv, yaml, RE2, the shell grammar) —
 * are found where they were. Third-party code that reads files beside itself,
 * and native addons, stay outside the bundle (EXTERNAL); the build fails if a
 * bundled third-party file refers to its own location.
 */
import { build, transform } from 'esbuild'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const packageDir = fileURLToPath(new URL('..', import.meta.url))
const dist = join(packageDir, 'dist')
const lib = join(packageDir, 'lib')
const entries = join(packageDir, '.bundle-entries')

// loaded from disk when used: native addons, wasm, code that locates files beside itself; one that
// bundled code imports (not requires) is resolved from dist/, so dsh depends on it (checked below)
const EXTERNAL = ['re2', 'web-tree-sitter', 'tree-sitter-bash', 'quickjs-emscripten', '@jitl/*', 'esbuild', 'sucrase', 'fsevents']
// required lazily by a module of ours and kept so (from disk, on first use): a search's matchers,
// which no command needs to start
const REQUIRED_FROM_DISK = ['re2js', 'picomatch', 'ignore']
// required lazily by a module of ours and kept in a CommonJS file of their own, dist/vendor/<group>.cjs,
// read and compiled on the first require: Ajv (a tool's first call, an elicitation's answer) and yaml
// (a config file) were half the bytes dsh mcp compiled before its first answer, which needs neither
const VENDORED = { ajv: ['ajv', 'ajv-formats', '@modelcontextprotocol/sdk/validation/ajv'], yaml: ['yaml'] }
const vendorGroup = (specifier) => Object.keys(VENDORED).find((group) => VENDORED[group].includes(specifier))
// each group's usual first work, run by the build so that the code cache written beside its file
// (vendor-load.js) holds what that work compiles: a tool's first validation, a config file read
const EXERCISE = {
  ajv(exports) {
    const { Ajv } = exports[vendoredKey(exports, '/ajv/dist/ajv.js')]
    const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false, addUsedSchema: false })
    const check = ajv.compile({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'], additionalProperties: false })
    if (check({ path: '.', limit: 0 })) throw new Error('the vendored Ajv accepted what it must refuse')
    ajv.errorsText(check.errors)
  },
  yaml(exports) {
    const { LineCounter, parseDocument } = exports[vendoredKey(exports, '/yaml/dist/index.js')]
    const lineCounter = new LineCounter()
    const doc = parseDocument('dataDir: .dsh\nplugins:\n  workspace-tools:\n    workspace: .\n', { lineCounter })
    if (doc.errors.length || doc.toJS().plugins['workspace-tools'].workspace !== '.') throw new Error('the vendored yaml misread its exercise')
  },
}
const vendoredKey = (exports, ending) => {
  const key = Object.keys(exports).find((name) => name.endsWith(ending))
  if (!key) throw new Error(`no vendored module ends in ${ending}`)
  return key
}

const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
const { BUNDLED } = await import(pathToFileURL(join(lib, 'plugins.js')).href)
const { vendorCache } = await import(pathToFileURL(join(packageDir, 'scripts', 'vendor-load.js')).href)

/** The nearest package.json above `file`: its directory and name. */
const owners = new Map()
function ownerOf(file) {
  let dir = dirname(file)
  while (true) {
    if (owners.has(dir)) return owners.get(dir)
    const path = join(dir, 'package.json')
    if (existsSync(path)) {
      const name = JSON.parse(readFileSync(path, 'utf8')).name
      if (name) {
        const owner = { dir, name }
        owners.set(dir, owner)
        return owner
      }
    }
    const up = dirname(dir)
    if (up === dir) throw new Error(`no package.json above ${file}`)
    dir = up
  }
}

const isThirdParty = (file) => file.split(sep).includes('node_modules') && !ownerOf(file).name.startsWith('@dsh/') && ownerOf(file).name !== 'dsh'
const SELF_LOCATING = /\bimport\.meta\.(?:url|dirname|filename|resolve)\b|\b__dirname\b|\b__filename\b/
const helper = join(packageDir, 'scripts', 'module-url.js')
const vendorLoader = join(packageDir, 'scripts', 'vendor-load.js')

const BUILTIN = new Set(builtinModules)
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
const isExternal = (specifier) => EXTERNAL.some((pattern) => pattern.endsWith('/*') ? specifier.startsWith(pattern.slice(0, -1)) : packageOf(specifier) === pattern)

/**
 * A module of ours that requires lazily (`const require = createRequire(import.meta.url)`, then
 * `require('ajv')` where it is needed): the packages the bundle can hold are required from the
 * bundle (esbuild bundles a require() call, evaluated when it runs), the rest (EXTERNAL, and
 * `require.resolve`) through the module's own createRequire, from its original location.
 */
function bundledRequires(contents, file) {
  if (!/\bconst require = createRequire\(/.test(contents)) return contents
  return contents
    .replace(/(?<![\w$.])require(?=\s*[(.])/g, '__dshRequire')
    .replace(/\bconst require = createRequire\(/, 'const __dshRequire = createRequire(')
    .replace(/__dshRequire\((['"])([^'"]+)\1\)/g, (call, quote, specifier) => {
      if (isExternal(specifier) || REQUIRED_FROM_DISK.includes(packageOf(specifier)) || BUILTIN.has(specifier) || specifier.startsWith('node:') || specifier.startsWith('.')) return call
      const group = vendorGroup(specifier)
      if (!group) return `require(${quote}${specifier}${quote})`
      return `__dshVendored(${JSON.stringify(group)}, ${JSON.stringify(vendorKey(group, createRequire(file).resolve(specifier)))})`
    })
}

/** group → (key → the file it requires): what each dist/vendor/<group>.cjs holds, keyed by path from dsh's package. */
const vendored = new Map()
function vendorKey(group, resolved) {
  const key = relative(packageDir, resolved).split(sep).join('/')
  if (!vendored.has(group)) vendored.set(group, new Map())
  vendored.get(group).set(key, resolved)
  return key
}

/**
 * The MCP SDK's server module imports its default validator (Ajv with its formats) at load, for
 * a server not given one; dsh's is (mcp/json-schema-validator.ts: the SDK's own, required from the
 * vendored file on first use). In the bundle that import is this module instead, so loading the
 * server neither compiles nor runs Ajv; a server made without a validator fails at once, saying so.
 */
const sdkDefaultValidator = {
  name: 'dsh-sdk-default-validator',
  setup(b) {
    b.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) => {
      if (!args.importer.split(sep).join('/').includes('/@modelcontextprotocol/sdk/dist/esm/')) return undefined
      return { path: 'ajv-provider', namespace: 'dsh-sdk-default-validator' }
    })
    b.onLoad({ filter: /.*/, namespace: 'dsh-sdk-default-validator' }, () => ({
      contents: "export class AjvJsonSchemaValidator {\n  constructor() {\n    throw new Error(\"dsh's bundle leaves out the MCP SDK's default validator: give the server its jsonSchemaValidator\")\n  }\n}\n",
      loader: 'js',
    }))
  },
}

/** Rewrites `import.meta.url` to the original file's URL; refuses third-party code that locates itself. */
const originalUrls = {
  name: 'dsh-original-urls',
  setup(b) {
    b.onLoad({ filter: /\.(?:m?js|cjs)$/ }, async (args) => {
      if (args.path === helper || args.path === vendorLoader || args.path.startsWith(entries + sep)) return undefined
      const contents = readFileSync(args.path, 'utf8')
      if (!SELF_LOCATING.test(contents)) return undefined
      if (isThirdParty(args.path)) {
        return { errors: [{ text: `${args.path} refers to its own location (import.meta / __dirname); add its package to EXTERNAL in scripts/build-bundle.js` }] }
      }
      const owner = ownerOf(args.path)
      const within = relative(owner.dir, args.path).split(sep).join('/')
      // esbuild's define replaces the expression only, never text inside a string
      const { code } = await transform(bundledRequires(contents, args.path), { loader: 'js', format: 'esm', target: 'node20', define: { 'import.meta.url': '__dshImportMetaUrl', 'import.meta.dirname': '__dshUnrelocated', 'import.meta.filename': '__dshUnrelocated', 'import.meta.resolve': '__dshUnrelocated' }, sourcefile: args.path })
      if (code.includes('__dshUnrelocated')) return { errors: [{ text: `${args.path} uses import.meta beyond import.meta.url, which the bundle cannot relocate` }] }
      const url = `__dshModuleUrl(${JSON.stringify(owner.name)}, ${JSON.stringify(within)}, ${JSON.stringify(viaOf(owner.name))})`
      return { contents: `import { moduleUrl as __dshModuleUrl, vendored as __dshVendored } from ${JSON.stringify(helper)};\nconst __dshImportMetaUrl = ${url};\n${code}`, loader: 'js', resolveDir: dirname(args.path) }
    })
  },
}

/** The workspace packages from dsh to `name` along dependencies (dsh and `name` left out), found breadth first. */
function viaOf(name) {
  if (name === 'dsh') return []
  const seen = new Set(['dsh'])
  const queue = [{ name: 'dsh', dir: packageDir, path: [] }]
  while (queue.length) {
    const { dir, path } = queue.shift()
    const deps = Object.keys(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies ?? {})
    if (deps.includes(name)) return path
    for (const dep of deps) {
      if (seen.has(dep) || !dep.startsWith('@dsh/')) continue
      seen.add(dep)
      const manifest = createRequire(join(dir, 'package.json')).resolve(`${dep}/package.json`)
      queue.push({ name: dep, dir: dirname(manifest), path: [...path, dep] })
    }
  }
  throw new Error(`dsh does not depend on ${name}, directly or through its @dsh dependencies`)
}

/** A file name for a package's shared module: `@dsh/kernel` → `dsh-kernel`. */
const fileName = (specifier) => specifier.replace(/^@/, '').replace(/\//g, '-')

rmSync(entries, { recursive: true, force: true })
mkdirSync(join(entries, 'shared'), { recursive: true })

// every package a plugin from outside may import and must share with the kernel
const sharedPackages = ['cordis', 'schemastery', 'dsh', 'dsh/testing', ...Object.keys(manifest.dependencies).filter((name) => name.startsWith('@dsh/'))]
const entryPoints = [{ in: join(entries, 'cli.js'), out: 'cli' }]
for (const specifier of sharedPackages) {
  const namespace = await import(specifier === 'dsh' ? pathToFileURL(join(lib, 'index.js')).href : specifier === 'dsh/testing' ? pathToFileURL(join(lib, 'testing.js')).href : specifier)
  const target = specifier === 'dsh' ? join(lib, 'index.js') : specifier === 'dsh/testing' ? join(lib, 'testing.js') : specifier
  const names = Object.keys(namespace).filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name))
  const lines = []
  if (names.length) lines.push(`export { ${names.join(', ')} } from ${JSON.stringify(target)}`)
  if ('default' in namespace) lines.push(`export { default } from ${JSON.stringify(target)}`)
  const file = join(entries, 'shared', `${fileName(specifier)}.js`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  entryPoints.push({ in: file, out: `shared/${fileName(specifier)}` })
}

const loaders = BUNDLED.map((name) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(`@dsh/${name}`)}),`).join('\n')
const shared = sharedPackages.map((specifier) => `  ${JSON.stringify(specifier)}: new URL(${JSON.stringify(`./shared/${fileName(specifier)}.js`)}, import.meta.url).href,`).join('\n')
writeFileSync(join(entries, 'cli.js'), `import { enterBundle } from ${JSON.stringify(join(lib, 'bundle', 'state.js'))}
enterBundle({
  plugins: {
${loaders}
  },
  shared: {
${shared}
  },
  dir: new URL('./', import.meta.url).href,
})
await import(${JSON.stringify(join(lib, 'cli.js'))})
`)

// built beside dist/ and swapped in, so a CLI running from dist/ meanwhile (a test suite, while
// `npm pack` runs prepack) finds a whole bundle: the build is deterministic, chunk names included
const building = `${dist}.building-${process.pid}`
rmSync(building, { recursive: true, force: true })
let result
try {
  result = await build({
    entryPoints,
    outdir: building,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    chunkNames: 'chunks/[name]-[hash]',
    // CommonJS code in the bundle requires node's built-ins through this
    banner: { js: "import { createRequire as __dshCreateRequire } from 'node:module';\nconst require = __dshCreateRequire(import.meta.url);" },
    plugins: [originalUrls, sdkDefaultValidator],
    legalComments: 'none',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  })
  // each vendored group: one CommonJS file whose properties require their modules when first read
  for (const [group, modules] of [...vendored].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = join(entries, `vendor-${group}.cjs`)
    const getters = [...modules].sort(([a], [b]) => a.localeCompare(b)).map(([key, file]) => `  get ${JSON.stringify(key)}() { return require(${JSON.stringify(file)}) },`)
    writeFileSync(entry, `module.exports = {\n${getters.join('\n')}\n}\n`)
    const outfile = join(building, 'vendor', `${group}.cjs`)
    await build({ entryPoints: [entry], outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', external: EXTERNAL, plugins: [originalUrls], legalComments: 'none', sourcemap: true, logLevel: 'warning' })
    writeFileSync(`${outfile}.cache`, vendorCache(outfile, EXERCISE[group]))
  }
} catch (error) {
  rmSync(building, { recursive: true, force: true })
  throw error
} finally {
  rmSync(entries, { recursive: true, force: true })
}

// what bundled code imports from outside the bundle is resolved from dist/: dsh must depend on it
const imported = new Set()
for (const output of Object.values(result.metafile.outputs)) {
  for (const { path, external } of output.imports) {
    if (external && !BUILTIN.has(path) && !path.startsWith('node:') && !path.startsWith('.')) imported.add(packageOf(path))
  }
}
const undeclared = [...imported].filter((name) => !Object.hasOwn(manifest.dependencies, name))
if (undeclared.length) {
  rmSync(building, { recursive: true, force: true })
  throw new Error(`the bundle imports ${undeclared.join(', ')} from outside itself, so dsh's package.json must depend on ${undeclared.length > 1 ? 'them' : 'it'} (at the version its bundled importer pins)`)
}

const old = `${dist}.old-${process.pid}`
if (existsSync(dist)) renameSync(dist, old)
renameSync(building, dist)
rmSync(old, { recursive: true, force: true })
