// sandbox.landlock.ratio, sandbox.landlock-ns.ratio, sandbox.bwrap.ratio: the median time to spawn
// /bin/true through each backend's real read-only profile (what
// ctx.sandbox.confine returns) divided by the median of a bare spawn,
// measured interleaved in the same run after warm-up, so load from other
// work on the machine hits both sides alike.
import { spawnSync } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { bwrapProvider, DEFAULT_LIMITS, landlockNsProvider, landlockProvider, PROTECTED_NAMES, resolveReadPolicy } from '@dsh/sandbox'
import { median, now, tempDir } from './lib.js'

const SAMPLES = 200
const WARMUP = 20
// landlock-ns builds the bwrap profile's view itself, so it is held to bwrap's target
const TARGETS = { landlock: '<= 1.2', 'landlock-ns': '<= 3', bwrap: '<= 3' }

function spawnMs(argv) {
  const start = now()
  const r = spawnSync(argv[0], argv.slice(1), { stdio: 'ignore', env: { PATH: '/usr/bin:/bin' } })
  const elapsed = now() - start
  if (r.status !== 0) throw new Error(`${argv[0]} exited ${r.status ?? r.signal}`)
  return elapsed
}

export async function run() {
  if (process.platform !== 'linux') return []
  const tmp = tempDir('dsh-bench-sandbox-')
  try {
    const workspace = realpathSync(tmp.dir)
    // the service's defaults: the default read-deny list and protected names
    const policy = { mode: 'read-only', workspace, writableRoots: [], network: 'off', limits: DEFAULT_LIMITS, ...resolveReadPolicy(undefined, undefined, [workspace]), protectedPaths: PROTECTED_NAMES }
    const argvs = { bare: ['/bin/true'] }
    const skipped = []
    for (const provider of [landlockProvider(), landlockNsProvider(), bwrapProvider()]) {
      const probe = await provider.probe()
      if (probe.available) argvs[provider.name] = provider.confine(['/bin/true'], policy).argv
      else skipped.push(`${provider.name}: ${probe.reason}`)
    }
    const times = Object.fromEntries(Object.keys(argvs).map((k) => [k, []]))
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      for (const [name, argv] of Object.entries(argvs)) {
        const ms = spawnMs(argv)
        if (i >= WARMUP) times[name].push(ms)
      }
    }
    const bare = median(times.bare)
    const rows = []
    for (const name of ['landlock', 'landlock-ns', 'bwrap']) {
      if (!times[name]) continue
      const ms = median(times[name])
      rows.push({
        name: `sandbox.${name}.ratio`, value: ms / bare, unit: 'x', target: TARGETS[name],
        baseline: { name: 'bare spawn of /bin/true', value: bare, unit: 'ms' },
        note: `${ms.toFixed(2)} ms through the read-only ${name} profile; medians of ${SAMPLES}, interleaved`,
      })
    }
    for (const why of skipped) rows.push({ name: `sandbox.${why.split(':')[0]}.ratio`, value: NaN, unit: 'x', note: `skipped: ${why}` })
    return rows
  } finally {
    tmp.remove()
  }
}
