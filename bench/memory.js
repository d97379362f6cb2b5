// memory.kernel_rss_mb: the resident memory of a kernel with the built-in default set and 1,000
// more tools registered, after 100,000 calls in one session, over a bare node process measured in
// the same run (all after forced collections). The calls go to one of the tools, as in the pipeline
// figures; memory.kernel_rss_all_tools_mb spreads them over all 1,000, so each tool's validator is
// compiled (each has a schema of its own). Needs the build (lib/). The child is bench/children/memory-run.js (not a suite: run.js runs the files at the top of bench/).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { median } from './lib.js'

const RUN = fileURLToPath(new URL('./children/memory-run.js', import.meta.url))
const SAMPLES = 3
const CALLS = 100_000
const TOOLS = 1000

function child(args) {
  const out = execFileSync(process.execPath, ['--expose-gc', RUN, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 })
  return out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
}

export async function run() {
  const bare = []
  const figures = { one: { rss: [], grown: [] }, all: { rss: [], grown: [] } }
  for (let i = 0; i < SAMPLES; i++) {
    bare.push(child(['--bare'])[0].rssMb)
    for (const [name, called] of [['one', 1], ['all', TOOLS]]) {
      // the first checkpoint once every tool called has been called
      const [first, last] = child([`${TOOLS},${CALLS}`, String(TOOLS), String(called)])
      figures[name].rss.push(last.rssMb)
      figures[name].grown.push(last.heapUsedMb + last.arrayBuffersMb - first.heapUsedMb - first.arrayBuffersMb)
    }
  }
  const baseline = { name: 'bare node', value: median(bare), unit: 'MB' }
  const row = (name, figure, target, what) => ({
    name,
    value: median(figure.rss) - baseline.value,
    unit: 'MB',
    ...(target ? { target } : {}),
    baseline,
    note: `RSS over bare node: default set + ${TOOLS.toLocaleString('en')} tools, ${CALLS.toLocaleString('en')} calls ${what} (${median(figure.rss).toFixed(1)} MB in all; heap + buffers ${median(figure.grown) >= 0 ? '+' : ''}${median(figure.grown).toFixed(1)} MB from call ${TOOLS.toLocaleString('en')}); median of ${SAMPLES}`,
  })
  return [
    row('memory.kernel_rss_mb', figures.one, '< 60 MB', 'to one tool'),
    row('memory.kernel_rss_all_tools_mb', figures.all, undefined, 'round all of them (1,000 validators compiled)'),
  ]
}
