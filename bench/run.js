// npm run bench [-- --json] [-- --only <prefix>]
// Every figure is measured against a baseline in the same run (medians after warm-up).
import { readdirSync } from 'node:fs'

const json = process.argv.includes('--json')
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined
const here = new URL('.', import.meta.url)
const suites = readdirSync(here).filter((f) => f.endsWith('.js') && !['run.js', 'lib.js'].includes(f)).sort()

const rows = []
for (const file of suites) {
  if (only && !file.startsWith(only)) continue
  const mod = await import(new URL(file, here))
  if (typeof mod.run !== 'function') continue
  try {
    for (const row of await mod.run()) {
      rows.push(row)
      if (json) process.stdout.write(JSON.stringify(row) + '\n')
    }
  } catch (error) {
    const row = { name: `${file.replace(/\.js$/, '')}.error`, value: NaN, unit: 'error', note: String(error?.message ?? error) }
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
