// sandbox.landlock.ratio, sandbox.landlock-ns.ratio, sandbox.bwrap.ratio: a confined /bin/true through
// each backend's fastest path — a sandbox built ahead for its view (process/slots.ts, landlock-run
// --slot), taken by the process runner as the bash tool takes it — divided by node's bare spawn of
// /bin/true through the same runner, in read-only (the figure) and workspace-write (`….ww`). Each
// sample follows a pause, as calls in a session do (a model answers between them): the slot the
// previous call's cleanup started building is ready by then. `….oneshot`: the launcher spawned per
// command (spawnSync of the argv ctx.sandbox.confine returns) over a bare spawnSync, as before.
// sandbox.pool_rss_mb: what one idle slot's processes hold (the sum of their RSS), the largest
// over the backends. Every side is measured interleaved in the same run, after warm-up.
import { spawnSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { Context } from 'cordis'
import { bwrapProvider, DEFAULT_LIMITS, landlockNsProvider, landlockProvider, PROTECTED_NAMES, resolveReadPolicy, sandboxEnv, SandboxService, startProcess } from '@dsh/sandbox'
import { median, now, tempDir } from './lib.js'

const SAMPLES = 200
const WARMUP = 20
const POOL_SAMPLES = 60
const POOL_WARMUP = 6
const PAUSE_MS = 25
const BACKENDS = ['landlock', 'landlock-ns', 'bwrap']
const ONESHOT_TARGETS = { landlock: '<= 1.2', 'landlock-ns': '<= 3', bwrap: '<= 3' }

function spawnMs(argv) {
  const start = now()
  const r = spawnSync(argv[0], argv.slice(1), { stdio: 'ignore', env: { PATH: '/usr/bin:/bin' } })
  const elapsed = now() - start
  if (r.status !== 0) throw new Error(`${argv[0]} exited ${r.status ?? r.signal}`)
  return elapsed
}

const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS))

async function runMs(argv, cwd, slot) {
  const start = now()
  const out = await startProcess({ argv, cwd, env: sandboxEnv(cwd), slot, maxOutputBytes: 1 << 16, killGraceMs: 2000, pipeGraceMs: 250 }).done
  const elapsed = now() - start
  if (out.exitCode !== 0) throw new Error(`${argv[0]} exited ${out.exitCode ?? out.signal}: ${out.stderr.text()}${out.spawnError ?? ''}`)
  return elapsed
}

/** RSS of a process and its descendants, in kB. */
function treeRssKb(pid) {
  let kb = 0
  try {
    kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
    for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) kb += treeRssKb(Number(child))
  } catch {}
  return kb
}

async function oneShot(workspace) {
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
  for (const name of BACKENDS) {
    if (!times[name]) continue
    const ms = median(times[name])
    rows.push({
      name: `sandbox.${name}.ratio.oneshot`, value: ms / bare, unit: 'x', target: ONESHOT_TARGETS[name],
      baseline: { name: 'bare spawnSync of /bin/true', value: bare, unit: 'ms' },
      note: `${ms.toFixed(2)} ms the read-only ${name} launcher spawned per command; medians of ${SAMPLES}, interleaved`,
    })
  }
  return { rows, skipped }
}

async function pooled(workspace, skipped) {
  const services = {}
  for (const name of BACKENDS) {
    if (skipped.some((why) => why.startsWith(`${name}:`))) continue
    const ctx = new Context()
    ctx.plugin(SandboxService, { backends: [name], workspace })
    await ctx.start()
    services[name] = { ctx, sandbox: ctx.get('sandbox') }
  }
  try {
    const sides = ['bare', ...Object.keys(services).flatMap((n) => [`${n}:read-only`, `${n}:workspace-write`])]
    const times = Object.fromEntries(sides.map((k) => [k, []]))
    const rss = {}
    let used = 0
    for (let i = 0; i < POOL_SAMPLES + POOL_WARMUP; i++) {
      for (const side of sides) {
        await pause()
        let ms
        if (side === 'bare') ms = await runMs(['/bin/true'], workspace)
        else {
          const [name, mode] = side.split(':')
          const { sandbox } = services[name]
          const lane = `${name}\0${mode}`
          const waiting = sandbox.slotsWaiting()[lane]
          if (waiting !== undefined && mode === 'read-only') rss[name] = Math.max(rss[name] ?? 0, treeRssKb(waiting))
          const confined = await sandbox.confine(['/bin/true'], { mode, workspace })
          try {
            ms = await runMs(confined.argv, workspace, confined.slot)
          } finally {
            confined.cleanup()
          }
          if (waiting !== undefined && sandbox.slotsWaiting()[lane] === undefined) used++
        }
        if (i >= POOL_WARMUP) times[side].push(ms)
      }
    }
    const bare = median(times.bare)
    const rows = []
    for (const name of Object.keys(services)) {
      for (const mode of ['read-only', 'workspace-write']) {
        const ms = median(times[`${name}:${mode}`])
        rows.push({
          name: `sandbox.${name}.ratio${mode === 'read-only' ? '' : '.ww'}`, value: ms / bare, unit: 'x', target: '<= 1.0',
          baseline: { name: 'bare spawn of /bin/true (the same process runner)', value: bare, unit: 'ms' },
          note: `${ms.toFixed(2)} ms through a ${mode} ${name} sandbox built ahead; medians of ${POOL_SAMPLES}, interleaved, ${PAUSE_MS} ms apart`,
        })
      }
    }
    const most = Object.entries(rss).sort((a, b) => b[1] - a[1])[0]
    if (most) {
      rows.push({
        name: 'sandbox.pool_rss_mb', value: most[1] / 1024, unit: 'MB', target: '<= 10',
        note: `the largest idle slot (${most[0]}; ${Object.entries(rss).map(([n, kb]) => `${n} ${(kb / 1024).toFixed(1)}`).join(', ')} MB: RSS summed over its processes); ${used} calls took a waiting slot`,
      })
    }
    return rows
  } finally {
    for (const { ctx } of Object.values(services)) await ctx.stop()
  }
}

export async function run() {
  if (process.platform !== 'linux') return []
  const tmp = tempDir('dsh-bench-sandbox-')
  try {
    const workspace = realpathSync(tmp.dir)
    const { rows: once, skipped } = await oneShot(workspace)
    const rows = [...(await pooled(workspace, skipped)), ...once]
    for (const why of skipped) rows.push({ name: `sandbox.${why.split(':')[0]}.ratio`, value: NaN, unit: 'x', note: `skipped: ${why}` })
    return rows
  } finally {
    tmp.remove()
  }
}
