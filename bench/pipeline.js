// pipeline.overhead_us, pipeline.calls_per_s, pipeline.scaling_ratio
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { median, tempDir } from './lib.js'

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

const now = () => Number(process.hrtime.bigint()) / 1e6

/** ms per call of `fn` over one batch of `n` sequential calls */
async function batch(fn, n) {
  const start = now()
  for (let i = 0; i < n; i++) await fn(i)
  return (now() - start) / n
}

export async function run() {
  // the two kernels and the direct baseline are measured in turns, sample by sample, so a change
  // in the machine's speed during the run (these machines are shared) reaches all three alike
  const at100 = await setup(100)
  const at1000 = await setup(1000)
  try {
    const args = { i: 1 }
    const noop = at100.noop
    const direct = async () => { await noop(args) }
    const via = (k, toolCount) => {
      const name = `tool${toolCount >> 1}`
      return (i) => k.kernel.execute({ callId: `c${i}`, name, arguments: args, session: k.session })
    }
    const calls100 = via(at100, 100)
    const calls1000 = via(at1000, 1000)
    for (const [k, calls] of [[at100, calls100], [at1000, calls1000]]) {
      const result = await calls(-1)
      if (result.isError) throw new Error(`bench call failed: ${result.error.message}`)
      void k
    }
    const samples = { direct: [], k100: [], k1000: [] }
    const SAMPLES = 15, WARMUP = 3, N = 4000
    for (let s = 0; s < SAMPLES + WARMUP; s++) {
      globalThis.gc?.()
      const order = s % 2 ? ['k1000', 'k100', 'direct'] : ['direct', 'k100', 'k1000']
      const taken = {}
      for (const which of order) {
        taken[which] = which === 'direct' ? await batch(direct, N) : await batch(which === 'k100' ? calls100 : calls1000, N)
      }
      if (s >= WARMUP) for (const which of order) samples[which].push(taken[which])
    }
    const directMs = median(samples.direct)
    const overhead100 = (median(samples.k100) - directMs) * 1000
    const overhead1000 = (median(samples.k1000) - directMs) * 1000
    return [
      { name: 'pipeline.overhead_us', value: overhead100, unit: 'us', target: '<= 25', baseline: { name: 'direct call', value: directMs * 1000, unit: 'us' }, note: `loaded: ${at100.loaded.join(', ')}; 3 pre-execute listeners, 2 guards, session log on; ${SAMPLES} samples of ${N} calls, in turns with the baseline` },
      { name: 'pipeline.calls_per_s', value: 1000 / median(samples.k100), unit: 'calls/s', target: '>= 40000' },
      { name: 'pipeline.scaling_ratio', value: overhead1000 / overhead100, unit: 'ratio', target: '<= 1.2', baseline: { name: 'overhead with 100 tools', value: overhead100, unit: 'us' }, note: 'the 100- and 1,000-tool kernels measured in turns' },
    ]
  } finally {
    await at100.remove()
    await at1000.remove()
  }
}
