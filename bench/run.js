// npm run bench [-- --json] [-- --only <prefix>]
// Every figure is measured against a baseline in the same run (medians after warm-up).
// Each suite runs in a process of its own: a figure does not depend on which suites ran before it
// in the same process (their heap, their JIT feedback). `--suite <file>` is that child.
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const json = process.argv.includes('--json')
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined
const suiteAt = process.argv.indexOf('--suite')
const here = new URL('.', import.meta.url)

async function runSuite(file) {
  const mod = await import(new URL(file, here))
  if (typeof mod.run !== 'function') return []
  try {
    return await mod.run()
  } catch (error) {
    return [{ name: `${file.replace(/\.js$/, '')}.error`, value: NaN, unit: 'error', note: String(error?.message ?? error) }]
  }
}

if (suiteAt > 0) {
  // the child: one suite, its rows as JSON lines
  for (const row of await runSuite(process.argv[suiteAt + 1])) process.stdout.write(JSON.stringify(row) + '\n')
  process.exit(0)
}

const suites = readdirSync(here).filter((f) => f.endsWith('.js') && !['run.js', 'lib.js'].includes(f)).sort()
const rows = []
for (const file of suites) {
  if (only && !file.startsWith(only)) continue
  let lines
  try {
    const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--suite', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
    lines = out.split('\n').filter((line) => line.startsWith('{'))
  } catch (error) {
    lines = [JSON.stringify({ name: `${file.replace(/\.js$/, '')}.error`, value: NaN, unit: 'error', note: `the suite's process failed: ${error.message}` })]
  }
  for (const line of lines) {
    const parsed = JSON.parse(line)
    // a line that is not a figure (a suite printing its own JSON) is named as the error it is
    const row = typeof parsed.name === 'string' ? parsed : { name: `${file.replace(/\.js$/, '')}.error`, value: NaN, unit: 'error', note: `not a figure: ${line.slice(0, 80)}` }
    rows.push(row)
    if (json) process.stdout.write(JSON.stringify(row) + '\n')
  }
}

if (!json) {
  const fmt = (v) => (Number.isFinite(v) ? (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3)) : String(v))
  const table = rows.map((r) => [r.name, `${fmt(r.value)} ${r.unit}`, r.target ?? '', r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.value)} ${r.baseline.unit}` : '', r.note ?? ''])
  const head = ['figure', 'value', 'target', 'baseline (same run)', 'note']
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)))
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()
  console.log(line(head))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of table) console.log(line(row))
}
