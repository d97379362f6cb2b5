// permissions.exec_check_us: what one exec inside a confined bash call costs when the call's Bash
// rules are checked at every exec (the kernel stops it, the launcher reads its argv and real path,
// dsh decides it with the rule matcher and answers) over the same exec unchecked.
// permissions.exec_check_us.prefiltered: the same for an exec of a program a rule names whose argv
// holds no piece of the rule (`git status` under `deny Bash(git push:*)`): the launcher lets it go on.
// permissions.exec_check_us.passed: the same for an exec of a program no rule names, which the
// launcher lets go on by itself (stopped and read, no round trip to dsh): the common case.
// Four kernels on the local chain's backend, the same workspace-tools bash and claude-code-permissions,
// each running `/bin/true --neverx` in a loop: `deny: Bash(true --never:*)` (the argument holds
// `--never`: asked of dsh and allowed), `deny: Bash(true --other:*)` (prefiltered), `deny: Bash(rm:*)`
// (true is not named: passed), and a rule that cannot refuse an exec (nothing is stopped). Each
// figure is the median, over rounds run back to back, of a call running a loop of EXECS execs less
// a call running `true` alone (the per-call cost, in the note), checked minus unchecked, per exec.
// permissions.exec_notify_floor_us: the mechanism alone, in C (children/exec-notify-floor.c): fork +
// exec + wait of /bin/true under a filter whose listener answers CONTINUE at once with the sync
// wake-up, over the same loop unfiltered — what no launcher or host can go below.
// permissions.exec_notify_floor_us.shell: the same, the loop run by /bin/sh as exec_check_us's is (a
// shell's child is a larger process to stop and wake than a small C program's).
import { execFileSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { compileRuleSet, decideExec, INLINE, loadShellParser } from '@dsh/claude-code-permissions'
import { median, now, perIteration, tempDir } from './lib.js'

const EXECS = 500
const SAMPLES = 15
const WARMUP = 3
// Why an argument: `--neverx` holds the rule's `--never`, so the launcher cannot rule the exec out and dsh decides it
const LOOP = `i=0; while [ $i -lt ${EXECS} ]; do /bin/true --neverx; i=$((i+1)); done`

async function kernelWith(workspace, name, permissions, backends) {
  const kernel = await createKernel({
    dataDir: join(workspace, `.dsh-${name}`),
    sandbox: { mode: 'read-only', workspace, ...(backends ? { backends } : {}) },
    plugins: { 'workspace-tools': { workspace }, 'claude-code-permissions': { settingsFiles: [], preset: 'on-request', permissions } },
  })
  const session = kernel.openSession({ id: `bench-exec-${name}` })
  session.beginTurn()
  let id = 0
  const call = async (command) => {
    const start = now()
    const result = await kernel.execute({ callId: `${name}${id++}`, name: 'bash', arguments: { command }, session })
    const elapsed = now() - start
    if (result.isError) throw new Error(`bash failed: ${JSON.stringify(result.content)}`)
    return { elapsed, result }
  }
  return { kernel, call, session }
}

export async function run() {
  if (process.platform !== 'linux') return []
  // the chain's backend, and plain Landlock, whose launcher supervises with or without exec rules
  // (under bwrap a call with exec rules also keeps the supervisor it otherwise does without)
  return [...await measure(undefined, ''), ...await measure(['landlock'], '.landlock'), ...floor()]
}

const FLOOR_SOURCE = fileURLToPath(new URL('./children/exec-notify-floor.c', import.meta.url))
const FLOOR_ROUNDS = 7

function floor() {
  const name = 'permissions.exec_notify_floor_us'
  const tmp = tempDir('dsh-bench-floor-')
  try {
    const program = join(tmp.dir, 'exec-notify-floor')
    try {
      execFileSync('cc', ['-O2', '-pthread', '-o', program, FLOOR_SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] })
    } catch (error) {
      return [{ name, value: NaN, unit: 'µs', note: `not measured: cc could not build ${FLOOR_SOURCE}: ${String(error.stderr ?? error.message).trim().split('\n')[0]}` }]
    }
    const rounds = execFileSync(program, [String(FLOOR_ROUNDS), String(EXECS * 4)], { encoding: 'utf8', timeout: 120_000 }).trim().split('\n').map((line) => JSON.parse(line))
    const added = (key, bare = 'bare') => median(rounds.map((round) => round[key] - round[bare]))
    return [
      {
        name, value: added('synced'), unit: 'µs',
        baseline: { name: 'fork + exec + wait of /bin/true, no filter', value: median(rounds.map((round) => round.bare)), unit: 'µs' },
        note: `C, ${EXECS * 4} execs a round, medians of ${FLOOR_ROUNDS} paired rounds; without the sync wake-up +${added('stopped').toFixed(1)} µs; load ${loadavg()[0].toFixed(1)}`,
      },
      {
        name: `${name}.shell`, value: added('shellSynced', 'shellBare'), unit: 'µs',
        baseline: { name: '/bin/sh looping over /bin/true, no filter', value: median(rounds.map((round) => round.shellBare)), unit: 'µs' },
        note: 'the same listener (the sync wake-up), the execs made by a shell loop as in exec_check_us',
      },
    ]
  } finally {
    tmp.remove?.()
  }
}

async function measure(backends, suffix) {
  const tmp = tempDir('dsh-bench-exec-')
  const workspace = realpathSync(tmp.dir)
  const checked = await kernelWith(workspace, 'checked', { deny: ['Bash(true --never:*)'] }, backends)
  const prefiltered = await kernelWith(workspace, 'prefiltered', { deny: ['Bash(true --other:*)'] }, backends)
  const passed = await kernelWith(workspace, 'passed', { deny: ['Bash(rm:*)'] }, backends)
  const unchecked = await kernelWith(workspace, 'unchecked', { deny: ['Read(./nothing-here)'] }, backends)
  try {
    const first = await checked.call('true')
    const facts = checked.session.events().find((e) => e.type === 'tool/result')?.data?.sandbox
    if (facts?.unenforced?.includes('exec-rules')) return [{ name: `permissions.exec_check_us${suffix}`, value: NaN, unit: 'µs', note: `the ${facts.backend} backend cannot stop execs here (exec-rules unenforced)` }]
    void first
    const kernels = { checked, prefiltered, passed, unchecked }
    const loops = { checked: [], prefiltered: [], passed: [], unchecked: [] }
    const calls = { checked: [], prefiltered: [], passed: [], unchecked: [] }
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      // in turns, so a stretch of load on this shared machine falls on all alike
      for (const name of Object.keys(kernels)) {
        const loop = (await kernels[name].call(LOOP)).elapsed
        const one = (await kernels[name].call('true')).elapsed
        if (i < WARMUP) continue
        loops[name].push(loop)
        calls[name].push(one)
      }
    }
    const perExec = (name) => (median(loops[name]) - median(calls[name])) / EXECS
    // Why paired: each round's three loops ran back to back, so a stretch of load cancels in their difference
    const added = (name) => median(loops[name].map((loop, i) => (loop - calls[name][i]) - (loops.unchecked[i] - calls.unchecked[i]))) / EXECS
    const baseline = { name: 'the same exec unchecked', value: perExec('unchecked') * 1000, unit: 'µs' }
    // the matcher's share: deciding one exec in process (no kernel, no socket)
    await loadShellParser()
    const set = compileRuleSet([{ source: INLINE, root: workspace, permissions: { deny: ['Bash(true --never:*)'] } }], { workspace, home: workspace, extraTools: new Set() })
    const env = { set, mode: 'default', workspace, directories: [workspace] }
    const decideUs = (await perIteration(() => decideExec({ path: '/bin/true', realPath: '/usr/bin/true', argv: ['/bin/true', '--neverx'], truncated: false }, set, env), { batch: 2000, samples: 9 })) * 1000
    const note = `${facts?.backend}; ${EXECS} execs a call, medians of ${SAMPLES}; the matcher alone ${decideUs.toFixed(1)} µs an exec; a call running true alone: checked ${median(calls.checked).toFixed(2)} ms, unchecked ${median(calls.unchecked).toFixed(2)} ms; load ${loadavg()[0].toFixed(1)}`
    return [
      { name: `permissions.exec_check_us${suffix}`, value: added('checked') * 1000, unit: 'µs', target: '<= 50', baseline, note },
      { name: `permissions.exec_check_us${suffix}.prefiltered`, value: added('prefiltered') * 1000, unit: 'µs', baseline, note: 'an exec of a program a rule names whose argv holds no piece the rule needs (deny Bash(true --other:*)): stopped, read and let go on by the launcher' },
      { name: `permissions.exec_check_us${suffix}.passed`, value: added('passed') * 1000, unit: 'µs', baseline, note: 'an exec no rule names: stopped, read and let go on by the launcher' },
    ]
  } finally {
    await checked.kernel.dispose()
    await prefiltered.kernel.dispose()
    await passed.kernel.dispose()
    await unchecked.kernel.dispose()
    tmp.remove?.()
  }
}
