// reload.cycle_ms: kernel.reload() of a 20-plugin config where one plugin's config changed
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { perRun, tempDir } from './lib.js'

const PLUGINS = 20

function pluginSource(i) {
  return `import Schema from 'schemastery'
export const name = 'bench-plugin-${i}'
export const inject = ['tools']
export const Config = Schema.object({ level: Schema.natural().default(0) })
export function apply(ctx, config) {
  ctx.tools.register({ name: 'tool_${i}', description: 'tool ${i}', parameters: { type: 'object' }, execute: () => String(config.level) })
  ctx.on('tools/pre-execute', (exec, next) => next())
}
`
}

export async function run() {
  const tmp = tempDir()
  // the plugins import schemastery: place them where the workspace's node_modules resolve
  const dir = join(process.cwd(), 'bench', '.reload-plugins')
  const { mkdirSync, rmSync } = await import('node:fs')
  mkdirSync(dir, { recursive: true })
  const specs = Array.from({ length: PLUGINS }, (_, i) => {
    const file = join(dir, `plugin-${i}.mjs`)
    writeFileSync(file, pluginSource(i))
    return file
  })
  // Why: a reload comes long after a plugin's files were written; a file younger than the code stamp's
  // racy window (100 ms) is read and hashed on every reload until it settles
  await new Promise((resolve) => setTimeout(resolve, 250))
  const config = (level) => ({ plugins: Object.fromEntries(specs.map((spec, i) => [spec, { level: i === 0 ? level : 0 }])) })
  const kernel = await createKernel({ dataDir: join(tmp.dir, '.dsh'), ...config(0) })
  try {
    let level = 0
    const cycle = await perRun(async () => {
      const summary = await kernel.reload(config(++level))
      if (summary.changed.length !== 1) throw new Error(`expected one changed plugin, got ${summary.changed.length}`)
    }, { samples: 15, warmup: 3 })
    // baseline: a reload where nothing changed (validation and diff only)
    const unchanged = await perRun(() => kernel.reload(config(level)), { samples: 15, warmup: 3 })
    return [
      { name: 'reload.cycle_ms', value: cycle, unit: 'ms', target: '<= 20', baseline: { name: 'reload with nothing changed', value: unchanged, unit: 'ms' }, note: `${PLUGINS} plugins, one changed` },
    ]
  } finally {
    await kernel.dispose()
    tmp.remove()
    rmSync(dir, { recursive: true, force: true })
  }
}
