// pipeline.overhead_us, pipeline.calls_per_s, pipeline.scaling_ratio
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { perIteration, tempDir } from './lib.js'

const POLICY_PLUGINS = ['timeout-policy', 'repeat-tool-reminder', 'spill-policy']

async function loadPolicies(kernel) {
  const loaded = []
  for (const name of POLICY_PLUGINS) {
    try {
      const mod = await import(`@dsh/${name}`)
      kernel.ctx.plugin(mod, {})
      loaded.push(name)
    } catch {
      // not built yet: a stand-in listener of the same shape keeps the load comparable
      if (name === 'timeout-policy') kernel.ctx.on('tools/execute', (exec, next) => next())
      else kernel.ctx.on('tools/post-execute', (input, next) => next())
      loaded.push(`${name} (stand-in)`)
    }
  }
  await kernel.ctx.lifecycle.flush()
  return loaded
}

async function setup(toolCount) {
  const tmp = tempDir()
  const kernel = await createKernel({ dataDir: join(tmp.dir, '.dsh') })
  const noop = () => 'ok'
  const loaded = await loadPolicies(kernel)
  kernel.ctx.plugin({
    name: 'bench',
    inject: ['tools'],
    apply(ctx) {
      for (let i = 0; i < toolCount; i++) {
        ctx.tools.register({ name: `tool${i}`, description: `tool ${i}`, parameters: { type: 'object', properties: { i: { type: 'number' } } }, execute: noop })
      }
      for (let i = 0; i < 3; i++) ctx.on('tools/pre-execute', (exec, next) => next())
      ctx.tools.guard(() => undefined)
      ctx.tools.guard((exec) => (exec.name === 'forbidden' ? 'no' : undefined))
    },
  })
  const session = kernel.openSession({ id: 'bench' })
  session.beginTurn()
  return { kernel, session, noop, loaded, remove: async () => { await kernel.dispose(); tmp.remove() } }
}

async function measure(toolCount) {
  const { kernel, session, noop, loaded, remove } = await setup(toolCount)
  try {
    const name = `tool${toolCount >> 1}`
    const args = { i: 1 }
    // baseline: the same tool body called directly, with the same argument object
    const direct = await perIteration(async () => { await noop(args) }, { batch: 5000 })
    const viaKernel = await perIteration((i) => kernel.execute({ callId: `c${i}`, name, arguments: args, session }), { batch: 10_000, samples: 9, warmup: 2 })
    const result = await kernel.execute({ callId: 'check', name, arguments: args, session })
    if (result.isError) throw new Error(`bench call failed: ${result.error.message}`)
    return { direct, viaKernel, loaded }
  } finally {
    await remove()
  }
}

export async function run() {
  const at100 = await measure(100)
  const at1000 = await measure(1000)
  const overhead100 = (at100.viaKernel - at100.direct) * 1000
  const overhead1000 = (at1000.viaKernel - at1000.direct) * 1000
  return [
    { name: 'pipeline.overhead_us', value: overhead100, unit: 'us', target: '<= 25', baseline: { name: 'direct call', value: at100.direct * 1000, unit: 'us' }, note: `loaded: ${at100.loaded.join(', ')}; 3 pre-execute listeners, 2 guards, session log on` },
    { name: 'pipeline.calls_per_s', value: 1000 / at100.viaKernel, unit: 'calls/s', target: '>= 40000' },
    { name: 'pipeline.scaling_ratio', value: overhead1000 / overhead100, unit: 'ratio', target: '<= 1.2', baseline: { name: 'overhead with 100 tools', value: overhead100, unit: 'us' } },
  ]
}
