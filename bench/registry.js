// registry.register_10k_ms, registry.schemas_10k_ms
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { perRun, tempDir } from './lib.js'

const N = 10_000
const defs = Array.from({ length: N }, (_, i) => ({
  name: `tool${i}`,
  description: `tool number ${i}`,
  parameters: { type: 'object', properties: { path: { type: 'string' }, n: { type: 'integer' } }, required: ['path'] },
  execute: () => 'ok',
}))

export async function run() {
  const tmp = tempDir()
  const kernel = await createKernel({ dataDir: join(tmp.dir, '.dsh') })
  try {
    let fork
    const register = await perRun(() => {
      fork = kernel.ctx.plugin({ name: 'many', inject: ['tools'], apply(ctx) { const tools = ctx.tools; for (const def of defs) tools.register(def) } })
    }, { samples: 7, setup: async () => { fork?.dispose(); await Promise.resolve() } })
    // baseline: putting the same definitions into a plain Map
    const baseline = await perRun(() => { const map = new Map(); for (const def of defs) map.set(def.name, def) }, { samples: 7 })
    fork?.dispose()
    fork = kernel.ctx.plugin({ name: 'many', inject: ['tools'], apply(ctx) { const tools = ctx.tools; for (const def of defs) tools.register(def) } })
    const tools = kernel.ctx.tools
    // the first schemas() after a change builds the view; later ones are cached
    const schemasCold = await perRun(() => { tools.schemas(); tools.wireSchemas() }, {
      samples: 7,
      setup: () => { tools.setMode('native'); tools.setMode('both'); tools.setMode('native') },
    })
    const schemasWarm = await perRun(() => { tools.schemas(); tools.wireSchemas() }, { samples: 7 })
    if (tools.schemas().length !== N) throw new Error(`expected ${N} schemas, got ${tools.schemas().length}`)
    return [
      { name: 'registry.register_10k_ms', value: register, unit: 'ms', target: '<= 100', baseline: { name: 'Map.set of the same definitions', value: baseline, unit: 'ms' } },
      { name: 'registry.schemas_10k_ms', value: schemasCold, unit: 'ms', target: '<= 10', note: `after a change (cached: ${schemasWarm.toFixed(4)} ms)` },
    ]
  } finally {
    await kernel.dispose()
    tmp.remove()
  }
}
