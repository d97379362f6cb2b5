#!/usr/bin/env node
// Compares the tests a vitest run skipped with the committed list of the skips expected in that
// pass, so a machine that silently lost a backend (or a test that started skipping) fails CI.
//   node .ci/skips.mjs check <report.json> <manifest>   exit 1 on a skip the manifest lacks
//   node .ci/skips.mjs write <report.json> <manifest>   (re)write the manifest from a run
import { readFileSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'

const [verb, reportPath, manifestPath] = process.argv.slice(2)
if (!['check', 'write'].includes(verb) || !reportPath || !manifestPath) {
  console.error('usage: node .ci/skips.mjs check|write <vitest-json-report> <manifest>')
  process.exit(2)
}

const root = resolve(import.meta.dirname, '..')
const report = JSON.parse(readFileSync(reportPath, 'utf8'))
const skipped = new Set()
for (const file of report.testResults ?? []) {
  const name = relative(root, file.name)
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'skipped' || test.status === 'pending' || test.status === 'todo') skipped.add(`${name} > ${test.fullName}`)
  }
}

if (verb === 'write') {
  writeFileSync(manifestPath, [...skipped].sort().join('\n') + (skipped.size ? '\n' : ''))
  console.log(`skips: wrote ${skipped.size} expected skips to ${manifestPath}`)
  process.exit(0)
}

const expected = new Set(readFileSync(manifestPath, 'utf8').split('\n').filter((line) => line !== ''))
const unexpected = [...skipped].filter((t) => !expected.has(t)).sort()
const gone = [...expected].filter((t) => !skipped.has(t)).sort()
for (const t of gone) console.log(`skips: expected to skip, ran: ${t}`)
if (unexpected.length) {
  console.error(`skips: ${unexpected.length} test(s) skipped that ${manifestPath} does not expect:`)
  for (const t of unexpected) console.error(`  ${t}`)
  console.error('A backend or tool this run needs is missing, or a test started skipping; if intended, update the manifest (node .ci/skips.mjs write).')
  process.exit(1)
}
console.log(`skips: ${skipped.size} skipped, all expected by ${manifestPath}`)
// the plain closing line CI reads: how many ran in this pass
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped.size} skipped`)
