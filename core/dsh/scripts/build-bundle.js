#!/usr/bin/env node
/**
 * Builds dist/: the dsh CLI, its services and its bundled plugins as one CommonJS script with a
 * V8 code cache, which bin/dsh.cjs runs when it is there (decisions/2026-12-01-cli-bundle.md).
 * Input is the built lib/ of every package, so run it after `tsc -b` (the root build and dsh's
 * prepack do).
 *
 * - dist/cli.cjs, the script (esbuild, one file): tells the CLI it runs from the bundle (the
 *   bundled plugins' loaders, the shared modules below), then runs lib/cli.js's code. What a
 *   command does not use (the MCP SDK for exec, execa, OpenTelemetry, each plugin) is compiled
 *   lazily by V8 and evaluated on its first import, as esbuild turns a dynamic import of bundled
 *   code into a call.
 * - dist/cli.cjs.cache: its code cache, written after training runs of a first `dsh mcp` and
 *   `dsh exec` (bundle-train.js).
 * - dist/start.cjs, the entry bin/dsh.cjs requires (CommonJS: no ES module loader on the way):
 *   compiles and runs the script with its cache (bundle-start.cjs).
 * - dist/shared/<package>.js for cordis, schemastery, dsh, dsh/testing and every @dsh package the
 *   bundle holds: an ES module re-exporting the script's copy, which a plugin from outside the
 *   bundle is given for that package (one copy).
 * - dist/vendor/<group>.cjs: what our modules require lazily and no command needs to start (Ajv,
 *   yaml), one CommonJS file a group, compiled on the first require with a cache of its own
 *   (VENDORED).
 *
 * `import.meta.url` in a bundled module of a workspace package is replaced by the URL of its
 * original file in lib/ (found from the installed package on first use), so the files it reads
 * beside itself — the launcher, the worker, package.json, what it requires lazily (Ajv, yaml,
 * RE2, the shell grammar) — are found where they were. Third-party code that reads files beside
 * itself, and native addons, stay outside the bundle (EXTERNAL); the build fails if a bundled
 * third-party file refers to its own location.
 */
import { build, transform } from 'esbuild'
import { init as lexerReady, parse as parseModule } from 'es-module-lexer'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import { dirname, join, posix, relative, sep } from 'node:path'
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
// (a config file) were half the bytes dsh mcp compiled before its first answer, which needs neither;
// acorn (a plugin's SyntaxError placed) and the OpenTelemetry SDK (--otel) were a third of what
// every start reads, for work most starts never do
const VENDORED = {
  acorn: ['acorn'],
  ajv: ['ajv', 'ajv-formats', '@modelcontextprotocol/sdk/validation/ajv'],
  otel: ['@opentelemetry/core', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/resources', '@opentelemetry/sdk-trace-node'],
  yaml: ['yaml'],
}
const vendorGroup = (specifier) => Object.keys(VENDORED).find((group) => VENDORED[group].includes(specifier))
// each group's usual first work, run by the build so that the code cache written beside its file
// (vendor-load.js) holds what that work compiles: a tool's first validation, a config file read,
// a plugin's syntax error placed, a tracer provider made (not registered: the build traces nothing)
const EXERCISE = {
  acorn(exports) {
    const { parse } = exports[vendoredKey(exports, '/acorn/dist/acorn.js')]
    let placed
    try {
      parse('export const a = \n  {', { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true, locations: true })
    } catch (error) {
      placed = error.loc
    }
    if (placed?.line !== 2) throw new Error('the vendored acorn did not place its exercise\'s syntax error')
  },
  ajv(exports) {
    const { Ajv } = exports[vendoredKey(exports, '/ajv/dist/ajv.js')]
    const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false, addUsedSchema: false })
    const check = ajv.compile({ type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'], additionalProperties: false })
    if (check({ path: '.', limit: 0 })) throw new Error('the vendored Ajv accepted what it must refuse')
    ajv.errorsText(check.errors)
  },
  otel(exports) {
    const { defaultResource, resourceFromAttributes } = exports[vendoredKey(exports, '/@opentelemetry/resources/build/src/index.js')]
    const { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } = exports[vendoredKey(exports, '/@opentelemetry/sdk-trace-node/build/src/index.js')]
    const { OTLPTraceExporter } = exports[vendoredKey(exports, '/@opentelemetry/exporter-trace-otlp-http/build/src/index.js')]
    const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'dsh' }))
    const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter()), new BatchSpanProcessor(new ConsoleSpanExporter())] })
    if (resource.attributes['service.name'] !== 'dsh' || !provider.getTracer('dsh')) throw new Error('the vendored OpenTelemetry SDK misbuilt its exercise')
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
const { BUNDLED } = await import(pathToFileURL(join(lib, 'plugins', 'import-plugin.js')).href)
const { DYNAMIC_IMPORT, vendorCache } = await import(pathToFileURL(join(packageDir, 'scripts', 'vendor-load.js')).href)
await lexerReady
const { trainCache } = await import(pathToFileURL(join(packageDir, 'scripts', 'bundle-train.js')).href)

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
    // made on its first call, so the module's package is not looked for at import
    .replace(/\bconst require = createRequire\(import\.meta\.url\)/, 'const __dshRequire = __dshLazyRequire(__dshMeta)')
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
 * a server not given one; dsh's is (@dsh/mcp's json-schema-validator.ts: the SDK's own, required from the
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
      const { code } = await transform(bundledRequires(contents, args.path), { loader: 'js', format: 'esm', target: 'node20', define: { 'import.meta.url': '__dshMeta.url', 'import.meta.dirname': '__dshUnrelocated', 'import.meta.filename': '__dshUnrelocated', 'import.meta.resolve': '__dshUnrelocated' }, sourcefile: args.path })
      if (code.includes('__dshUnrelocated')) return { errors: [{ text: `${args.path} uses import.meta beyond import.meta.url, which the bundle cannot relocate` }] }
      const meta = `__dshModuleMeta(${JSON.stringify(owner.name)}, ${JSON.stringify(within)}, ${JSON.stringify(viaOf(owner.name))})`
      return { contents: `import { lazyRequire as __dshLazyRequire, moduleMeta as __dshModuleMeta, vendored as __dshVendored } from ${JSON.stringify(helper)};\nconst __dshMeta = ${meta};\n${code}`, loader: 'js', resolveDir: dirname(args.path) }
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

/**
 * The script as esbuild wrote it, made ready to run through vm with a code cache: its `import()`
 * calls (a plugin from outside, an ES-only package such as web-tree-sitter: what esbuild left as
 * an import) become calls of the function vendor-load.js gives the script, DYNAMIC_IMPORT, a word
 * as long as `import` (the source map still fits), found by a lexer (es-module-lexer), so text in
 * strings, comments and regular expressions is never touched — the build fails on an import
 * statement or an `import.meta` left in it; and it is made ASCII.
 */
function finishScript(file) {
  let source = readFileSync(file, 'utf8')
  // the name as code (not the string vendor-load.js holds it in): a binding of it would hide the function
  if (new RegExp(`(?<![\\w$'"])${DYNAMIC_IMPORT.replace(/\$/g, '\\$')}(?![\\w$'"])`).test(source)) throw new Error(`${file} already uses the name ${DYNAMIC_IMPORT}, which stands for import() in the bundle`)
  const [imports] = parseModule(source)
  for (const { d, ss, a } of [...imports].sort((x, y) => y.ss - x.ss)) {
    if (a > -1) throw new Error(`${file} holds an import() with attributes at ${ss} (${JSON.stringify(source.slice(ss, ss + 60))}), which the bundle's import function does not pass on`)
    if (d < 0 || source.slice(ss, ss + 'import'.length) !== 'import') throw new Error(`${file} holds ${d === -2 ? 'an import.meta' : 'an import statement'} at ${ss} (${JSON.stringify(source.slice(ss, ss + 60))}), which a CommonJS script cannot run`)
    source = `${source.slice(0, ss)}${DYNAMIC_IMPORT}${source.slice(ss + 'import'.length)}`
  }
  // only ASCII, so node reads it as a one-byte string (a UTF-8 file becomes two bytes a character,
  // decoded slowly): esbuild escapes what is not ASCII in code, not in the comments it keeps. Each
  // such character becomes its \u escape, the same character wherever else it could stand (a
  // string, a cooked template, a regular expression); the build fails on one outside a comment line
  source = source.split('\n').map((line, index) => {
    if (!/[^\x00-\x7f]/.test(line)) return line
    if (!/^\s*(?:\/\/|\/\*|\*)/.test(line)) throw new Error(`${file}:${index + 1} holds a character that is not ASCII outside a comment: ${JSON.stringify(line.slice(0, 120))}`)
    return line.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
  }).join('\n')
  // the function, as vendor-load.js hands it over; required by node's CommonJS loader (source maps
  // on), the script imports for itself. Declared last, before the source map's comment, as a
  // function (hoisted: bound before any line runs), so no line or column the map names moves
  const mapComment = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(source)
  if (!mapComment) throw new Error(`${file} does not end with its sourceMappingURL comment`)
  const declaration = `\nfunction ${DYNAMIC_IMPORT}(specifier) { return module.dshImport ? module.dshImport(specifier) : import(specifier) }`
  writeFileSync(file, `${source.slice(0, mapComment.index)}${declaration}${source.slice(mapComment.index)}`)
}

/**
 * For `npm pack` (prepack): a source map's sources as they lie once installed. esbuild names each
 * source relative to the checkout's dist/ (`../../tools/src/x.ts`, `../../../node_modules/cosmokit/…`),
 * which names no file in an installed tree; installed, dsh is node_modules/dsh and every package it
 * bundles node_modules/<name> beside it (npm's flat layout), so a package's file is
 * `../../<name>/<path>` from dist/, dsh's own `../<path>` (one `../` more from dist/vendor/).
 */
function installedSources(mapFile, building) {
  const map = JSON.parse(readFileSync(mapFile, 'utf8'))
  const installed = posix.join('/node_modules', manifest.name, 'dist', relative(building, dirname(mapFile)).split(sep).join('/'))
  map.sources = map.sources.map((source) => {
    const file = join(dirname(mapFile), source)
    if (!existsSync(file)) return source
    const owner = ownerOf(file)
    const within = relative(owner.dir, file).split(sep).join('/')
    return posix.relative(installed, posix.join('/node_modules', owner.name, within))
  })
  writeFileSync(mapFile, JSON.stringify(map))
}

/** A file name for a package's shared module: `@dsh/kernel` → `dsh-kernel`. */
const fileName = (specifier) => specifier.replace(/^@/, '').replace(/\//g, '-')

rmSync(entries, { recursive: true, force: true })
mkdirSync(entries, { recursive: true })

// every package a plugin from outside may import and must share with the kernel: dist/shared/<name>.js
// re-exports the script's copy, which the script's entry hands out under SHARED_KEY
const SHARED_KEY = "Symbol.for('dsh.bundle.shared')"
const sharedPackages = ['cordis', 'schemastery', 'dsh', 'dsh/testing', ...Object.keys(manifest.dependencies).filter((name) => name.startsWith('@dsh/'))]
const sharedTarget = (specifier) => (specifier === 'dsh' ? join(lib, 'index.js') : specifier === 'dsh/testing' ? join(lib, 'testing.js') : specifier)
const sharedModules = []
for (const specifier of sharedPackages) {
  const target = sharedTarget(specifier)
  const namespace = await import(target.startsWith('/') ? pathToFileURL(target).href : target)
  const names = Object.keys(namespace).filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name))
  const lines = [
    `// the copy of ${specifier} in dsh's bundle (dist/cli.cjs), for a plugin from outside the bundle (scripts/build-bundle.js)`,
    `const shared = globalThis[${SHARED_KEY}]`,
    `if (!shared) throw new Error(${JSON.stringify(`dsh's dist/shared/${fileName(specifier)}.js stands for the copy of ${specifier} in a running dsh bundle, and none runs in this process`)})`,
    `const namespace = await shared[${JSON.stringify(specifier)}]()`,
    `for (const name of ${JSON.stringify(names)}) if (!(name in namespace)) throw new Error(\`dsh's bundle holds no \${name} of ${specifier} (rebuild with npm run build)\`)`,
  ]
  if (names.length) lines.push(`export const { ${names.join(', ')} } = namespace`)
  if ('default' in namespace) lines.push('export default namespace.default')
  sharedModules.push({ file: `shared/${fileName(specifier)}.js`, text: `${lines.join('\n')}\n` })
}

const loaders = BUNDLED.map((name) => `  ${JSON.stringify(name)}: () => import(${JSON.stringify(`@dsh/${name}`)}),`).join('\n')
const namespaces = sharedPackages.map((specifier) => `  ${JSON.stringify(specifier)}: () => import(${JSON.stringify(sharedTarget(specifier))}),`).join('\n')
const shared = sharedPackages.map((specifier) => `  ${JSON.stringify(specifier)}: pathToFileURL(join(__dirname, ${JSON.stringify(`shared/${fileName(specifier)}.js`)})).href,`).join('\n')
writeFileSync(join(entries, 'cli.js'), `import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { enterBundle } from ${JSON.stringify(join(lib, 'bundle', 'state.js'))}
Object.defineProperty(globalThis, ${SHARED_KEY}, { value: Object.freeze({
${namespaces}
}) })
enterBundle({
  plugins: {
${loaders}
  },
  shared: {
${shared}
  },
  dir: pathToFileURL(join(__dirname, '/')).href,
})
import(${JSON.stringify(join(lib, 'cli.js'))}).catch((error) => {
  process.stderr.write(\`dsh: \${error?.stack ?? error}\\n\`)
  process.exitCode = 2
})
`)

// built beside dist/ and swapped in, so a CLI running from dist/ meanwhile (a test suite, while
// `npm pack` runs prepack) finds a whole bundle: the build is deterministic
const building = `${dist}.building-${process.pid}`
rmSync(building, { recursive: true, force: true })
let result
try {
  result = await build({
    entryPoints: [join(entries, 'cli.js')],
    outfile: join(building, 'cli.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // jsonc-parser's main is a UMD file whose requires esbuild cannot follow; its ES build is the same code
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    plugins: [originalUrls, sdkDefaultValidator],
    legalComments: 'none',
    // a third less to read, hash and decode at every start (2.7 → 1.9 MB); names are kept (cordis
    // names plugins after their functions), and a stack trace maps through the source map
    minifyWhitespace: true,
    // esbuild renames a class whose name collides in the bundle (`RequestError` → `RequestError2`): code that
    // tests `error.name` or `constructor.name` then breaks; keepNames keeps every `.name` as written
    keepNames: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    // an import.meta left in the script would be an empty object: every one must have been relocated
    logOverride: { 'empty-import-meta': 'error' },
  })
  finishScript(join(building, 'cli.cjs'))
  // the entry bin/dsh.cjs requires: the script run with its code cache
  await build({ entryPoints: [join(packageDir, 'scripts', 'bundle-start.cjs')], outfile: join(building, 'start.cjs'), bundle: true, format: 'cjs', platform: 'node', target: 'node20', legalComments: 'none', logLevel: 'warning' })
  for (const { file, text } of sharedModules) {
    mkdirSync(dirname(join(building, file)), { recursive: true })
    writeFileSync(join(building, file), text)
  }
  // each vendored group: one CommonJS file whose properties require their modules when first read
  for (const [group, modules] of [...vendored].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = join(entries, `vendor-${group}.cjs`)
    const getters = [...modules].sort(([a], [b]) => a.localeCompare(b)).map(([key, file]) => `  get ${JSON.stringify(key)}() { return require(${JSON.stringify(file)}) },`)
    writeFileSync(entry, `module.exports = {\n${getters.join('\n')}\n}\n`)
    const outfile = join(building, 'vendor', `${group}.cjs`)
    await build({ entryPoints: [entry], outfile, bundle: true, format: 'cjs', platform: 'node', target: 'node20', external: EXTERNAL, plugins: [originalUrls], legalComments: 'none', keepNames: true, sourcemap: true, logLevel: 'warning' })
    // run through vm as the script is: its import() calls (the OTLP exporter's) need the same function
    finishScript(outfile)
  }
  if (process.env.npm_lifecycle_event === 'prepack') for (const map of [join(building, 'cli.cjs.map'), ...[...vendored.keys()].map((group) => join(building, 'vendor', `${group}.cjs.map`))]) installedSources(map, building)
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

// The code caches, made in place: V8 (Node 20) keeps the name a script was compiled under in its
// cache, and a stack trace names it, so a cache made in the build's directory would name files
// that never exist where dsh runs. Until they are written, dist/ runs without them.
for (const group of [...vendored.keys()].sort()) {
  const file = join(dist, 'vendor', `${group}.cjs`)
  writeFileSync(`${file}.cache`, vendorCache(file, EXERCISE[group]))
}
// the script's code cache, after training runs of a first dsh mcp and dsh exec
await trainCache(join(dist, 'cli.cjs'))
