/**
 * The shell parser against bash's own grammar. Command lines are generated
 * (shell-grammar.ts: every compound form, substitution and redirection bash
 * has) and `bash -n` is the oracle: whenever bash accepts a line, each
 * program it placed in a command position must meet a deny rule written for
 * it — denied, or asked about where the parser cannot read the line — and
 * never be allowed, under the default set's preset. Bounded: a fixed number
 * of runs with a fixed seed, each bash check with a deadline.
 */
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeShell, loadShellParser } from '@dsh/claude-code-permissions'
import { decider } from './helpers.js'
import { lineArbitrary, MARKERS } from './shell-grammar.js'

beforeAll(() => loadShellParser())

const hasBash = spawnSync('bash', ['-c', 'true']).status === 0
const RUNS = 200
// a fixed seed keeps the suite repeatable; DSH_FUZZ_SEED tries others
const SEED = Number(process.env.DSH_FUZZ_SEED ?? 20261202)

function bashAccepts(text: string): boolean {
  const run = spawnSync('bash', ['-n', '-c', text], { timeout: 5_000, stdio: ['ignore', 'ignore', 'ignore'] })
  return run.status === 0
}

const deciders = new Map(MARKERS.map((marker) => [marker, decider({ allow: ['mcp__dsh__bash'], deny: [`Bash(${marker}:*)`] }, { preset: 'on-request' })]))

describe.skipIf(!hasBash)('the parser against bash -n', () => {
  it('a program bash would run meets its deny rule wherever it is placed', () => {
    let accepted = 0
    let read = 0
    fc.assert(
      fc.property(lineArbitrary(), (line) => {
        if (!bashAccepts(line.text)) return
        accepted++
        if (analyzeShell(line.text).kind === 'commands') read++
        for (const marker of new Set(line.programs)) {
          const outcome = deciders.get(marker as typeof MARKERS[number])!.bash(line.text)
          if (outcome.decision === 'allow') throw new Error(`${marker} ran past Bash(${marker}:*): ${JSON.stringify(line.text)} — ${outcome.reason}`)
          // a line the parser read names the rule; one it could not read asks naming it too
          expect(outcome.rule?.text, line.text).toBe(`Bash(${marker}:*)`)
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    )
    // the oracle and the parser both did work: most generated lines are bash, and most of those are read, not merely asked about
    expect(accepted).toBeGreaterThan(RUNS / 2)
    console.log(`parser fuzz: ${accepted} of ${RUNS} lines are bash; the parser read ${read} of them, and asked about the rest`)
    expect(read / accepted).toBeGreaterThan(0.9)
  }, 120_000)

  it('every redirection operator bash has is read, not refused', () => {
    const lines = ['a <>x', 'a 3<>x', 'a >|x', 'a &>x', 'a &>>x', 'a <<<x', 'a <&0', 'a >&2', 'a 2>&1', 'a 3>&-', 'a 3<&-', 'a {fd}>x', 'a {fd}<>x', 'a {fd}>&-', 'a <<E\nx\nE', 'a <<-E\n\tx\n\tE', "a <<'E'\n$(b)\nE", 'a <(b)', 'a >(b)', 'a > >(b)', 'a < <(b)', 'a 2>>x', 'a >x 2>&1']
    for (const text of lines) {
      expect(bashAccepts(text), text).toBe(true)
      const analysis = analyzeShell(text)
      expect(analysis.kind, text).toBe('commands')
      if (analysis.kind === 'commands') expect(analysis.commands[0].words[0], text).toBe('a')
    }
  })
})
