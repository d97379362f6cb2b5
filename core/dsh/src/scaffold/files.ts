/**
 * The files of a new plugin package: a plugin with a name, `inject`, a
 * schemastery `Config` and `apply` registering one tool; a spec on
 * `dsh/testing` run by `node --test` after the build; a dsh.yml loading the
 * build; a README. dsh and cordis are peers at the version and range of the
 * dsh that wrote it, and dev dependencies on that dsh's own copies by `file:`
 * path (origin.ts): dsh's packages are not on the registry.
 */
import type { PluginNames } from './names.js'

export interface ScaffoldVersions {
  dsh: string
  cordis: string
  schemastery: string
  typescript: string
  nodeTypes: string
  /** the real path of the dsh package directory that writes the scaffold */
  dshDir: string
  /** the real path of the cordis that dsh runs on (absent: the registry's, at dsh's range) */
  cordisDir?: string
}

export function scaffoldFiles(names: PluginNames, versions: ScaffoldVersions): Record<string, string> {
  const { packageName, pluginName, toolName } = names
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
  return {
    'package.json': json({
      name: packageName,
      version: '0.1.0',
      description: `A dsh plugin: ${pluginName}`,
      type: 'module',
      exports: { '.': { types: './lib/src/index.d.ts', default: './lib/src/index.js' } },
      files: ['lib/src'],
      scripts: { build: 'tsc', test: 'tsc && node --test lib/test/plugin.test.js' },
      peerDependencies: { cordis: versions.cordis, dsh: `^${versions.dsh}` },
      dependencies: { schemastery: versions.schemastery },
      devDependencies: {
        '@types/node': versions.nodeTypes,
        cordis: versions.cordisDir ? `file:${versions.cordisDir}` : versions.cordis,
        dsh: `file:${versions.dshDir}`,
        typescript: versions.typescript,
      },
    }),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, declaration: true,
        rootDir: '.', outDir: 'lib', skipLibCheck: true, types: ['node'],
      },
      include: ['src', 'test'],
    }),
    '.gitignore': 'lib/\nnode_modules/\n.dsh/\n',
    'src/index.ts': `/**
 * ${pluginName}: registers the tool \`${toolName}\`, which greets whoever it is
 * given with the configured greeting. Replace it with what your plugin does.
 */
import type { Context } from 'cordis'
import Schema from 'schemastery'
import type {} from 'dsh'

export const name = '${pluginName}'
// every service the plugin uses: cordis starts it only once they all exist
export const inject = ['tools']

export const Config = Schema.object({
  greeting: Schema.string().default('Hello').description('The word the tool greets with.'),
})

// what \`apply\` receives: the schema's output, defaults filled in
export type Config = Schemastery.TypeT<typeof Config>

export function apply(ctx: Context, config: Config) {
  // registered through the plugin's ctx: removed with the plugin, on dispose or reload
  ctx.tools.register({
    name: '${toolName}',
    description: 'Greet someone by name.',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'Who to greet' } },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    execute: (args) => \`\${config.greeting}, \${String(args.name)}!\`,
  })
}
`,
    'test/plugin.test.ts': `// The plugin against the real pipeline (dsh/testing): plugged directly, with a
// bad config, and loaded from this package's dsh.yml. Run by \`npm test\`.
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { afterEach, test } from 'node:test'
import { createTestKernel, loadPlugin, type TestKernel } from 'dsh/testing'
import * as plugin from '../src/index.js'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

test('the tool answers with the configured greeting', async () => {
  k = await createTestKernel()
  await loadPlugin(k.ctx, plugin, { greeting: 'Hi' })
  const result = await k.call('${toolName}', { name: 'Ada' })
  assert.equal(result.isError, false)
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hi, Ada!' }])
})

test('the pipeline refuses arguments the schema does not allow', async () => {
  k = await createTestKernel()
  await loadPlugin(k.ctx, plugin)
  const result = await k.call('${toolName}', { name: '' })
  assert.equal(result.error?.code, 'INVALID_ARGS')
})

test('a bad config is refused, naming the plugin and the key', async () => {
  k = await createTestKernel()
  await assert.rejects(loadPlugin(k.ctx, plugin, { greting: 'Hi' }), /${pluginName}.*greting/)
  await assert.rejects(loadPlugin(k.ctx, plugin, { greeting: 3 }), /${pluginName}.*greeting/)
})

test('dsh.yml loads the build', async () => {
  k = await createTestKernel({ configFile: fileURLToPath(new URL('../../dsh.yml', import.meta.url)) })
  const result = await k.call('${toolName}', { name: 'world' })
  assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, world!' }])
})
`,
    'dsh.yml': `# Loads the build of this plugin (\`npm run build\` first). Try it:
#   npx dsh inspect
#   npx dsh exec ${toolName} '{"name": "world"}'
plugins:
  ./lib/src/index.js:
    greeting: Hello
`,
    'README.md': `# ${packageName}

A [dsh](https://www.npmjs.com/package/dsh) plugin, \`${pluginName}\`: it registers the tool
\`${toolName}\`, which greets whoever it is given with the configured \`greeting\`.

## Develop

    npm install
    npm test        # builds, then runs test/plugin.test.ts against the real pipeline (dsh/testing)
    npx dsh exec ${toolName} '{"name": "world"}'    # through ./dsh.yml, which loads lib/src/index.js
    npx dsh mcp --watch    # serve it to an MCP client; each npm run build reloads it

\`dsh\` and \`cordis\` are peer dependencies: the plugin runs on the host's copies, the ones that own
the context and the services. They are dev dependencies too, to build and test — on the very copies
of the dsh that wrote this package, by \`file:\` path (\`${versions.dshDir}\`${versions.cordisDir ? ` and \`${versions.cordisDir}\`` : ''}),
since dsh's packages are not on the npm registry: \`npm install\` links them and asks the registry
only for TypeScript, \`@types/node\` and schemastery. Keep npm's default \`install-links=false\` (a copy
of the directory would lose the dependencies it finds beside it). On another machine, or once dsh is
published, point \`devDependencies.dsh\` (and \`cordis\`) at your dsh: another \`file:\` path, or a
version range.

## Use it

In a project's \`dsh.yml\`, by package name once installed, or by the path of its build:

\`\`\`yaml
plugins:
  ${packageName}:
    greeting: Hello
\`\`\`

## Config

| key | type | default | meaning |
|---|---|---|---|
| \`greeting\` | string | \`Hello\` | The word the tool greets with. |
`,
  }
}
