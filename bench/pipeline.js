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

/** The pipeline figure's kernel: 100 (or `toolCount`) tools, the policy plugins, 3 pre-execute listeners, 2 guards. */
export async function setup(toolCount) {
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

export const SAMPLES = 15
const WARMUP = 3
export const N = 4000

/** ms per call of each of `runs` per sample, measured in turns (the order alternating). */
export async function inTurns(runs) {
  const names = Object.keys(runs)
  const samples = Object.fromEntries(names.map((name) => [name, []]))
  // no forced collection between samples: after one, V8 shrinks the young generation, and the
  // next sample paid for growing it back (measured: about 10 µs a call more)
  for (let s = 0; s < SAMPLES + WARMUP; s++) {
    const order = s % 2 ? [...names].reverse() : names
    for (const name of order) {
      const ms = await batch(runs[name], N)
      if (s >= WARMUP) samples[name].push(ms)
    }
  }
  return samples
}

export function calls(k, toolCount, args) {
  const name = `tool${toolCount >> 1}`
  return (i) => k.kernel.execute({ callId: `c${i}`, name, arguments: args, session: k.session })
}

export async function checked(call) {
  const result = await call(-1)
  if (result.isError) throw new Error(`bench call failed: ${result.error.message}`)
}

export async function run() {
  // Measured in turns, sample by sample, so a change in the machine's speed during the run (these
  // machines are shared) reaches everything compared alike. First the 100-tool kernel alone
  // against the direct call; then, for the scaling ratio, it against a 1,000-tool kernel.
  const args = { i: 1 }
  const at100 = await setup(100)
  let at1000
  try {
    const noop = at100.noop
    const calls100 = calls(at100, 100, args)
    await checked(calls100)
    // the public path: what the README shows and third-party hosts call, through cordis's context
    const ctx = at100.kernel.ctx
    const name = `tool${100 >> 1}`
    const public100 = (i) => ctx.tools.execute({ callId: `p${i}`, name, arguments: args, session: at100.session })
    await checked(public100)
    const alone = await inTurns({ direct: async () => { await noop(args) }, k100: calls100, public100 })
    const direct = median(alone.direct)
    const k100 = median(alone.k100)
    const publicRatio = median(alone.public100.map((ms, s) => ms / alone.k100[s]))
    const overhead100 = (k100 - direct) * 1000

    at1000 = await setup(1000)
    const calls1000 = calls(at1000, 1000, args)
    await checked(calls1000)
    const both = await inTurns({ k100: calls100, k1000: calls1000 })
    // per sample, the two kernels' overheads over the direct baseline, taken moments apart
    const scaling = median(both.k100.map((ms, s) => (both.k1000[s] - direct) / (ms - direct)))
    return [
      { name: 'pipeline.overhead_us', value: overhead100, unit: 'us', target: '<= 25', baseline: { name: 'direct call', value: direct * 1000, unit: 'us' }, note: `loaded: ${at100.loaded.join(', ')}; 3 pre-execute listeners, 2 guards, session log on; ${SAMPLES} samples of ${N} calls, in turns with the baseline` },
      { name: 'pipeline.public_ratio', value: publicRatio, unit: 'x', target: '<= 1.3', baseline: { name: 'per call through kernel.execute', value: k100 * 1000, unit: 'us' }, note: `${(median(alone.public100) * 1000).toFixed(2)} us per call through kernel.ctx.tools.execute; median of per-sample ratios, in turns` },
      { name: 'pipeline.calls_per_s', value: 1000 / k100, unit: 'calls/s', target: '>= 40000' },
      { name: 'pipeline.scaling_ratio', value: scaling, unit: 'ratio', target: '<= 1.2', baseline: { name: 'overhead with 100 tools', value: (median(both.k100) - direct) * 1000, unit: 'us' }, note: 'median of per-sample ratios, the 100- and 1,000-tool kernels measured in turns' },
    ]
  } finally {
    await at100.remove()
    await at1000?.remove()
  }
}
