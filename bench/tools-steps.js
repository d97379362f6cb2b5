// tools.steps.*: what a `bash {command:'true'}` call costs, step by step, on the local chain's backend
// in read-only: a bare `sh -c true` through the process runner; confine() alone; the command run in
// the view's slot; the cleanup; then whole calls through kernels of growing plugin sets (workspace-tools
// alone, + the policy plugins, + hooks-claude-code, + claude-code-permissions: the default set), so each
// figure less the one before is what that step adds. Medians, in turns, each sample after a pause.
// Beside each wall time, this process's own CPU time over the step (user + system, from
// process.cpuUsage): what the step costs node whatever the machine's load, which the wall time is not.
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { sandboxEnv, startProcess } from '@dsh/sandbox'
import { median, now, tempDir } from './lib.js'

const SAMPLES = 60
const WARMUP = 8
const PAUSE_MS = 25
const ARGV = ['/bin/sh', '-c', 'true']
const SETS = {
  // the steps' own kernel: confine, the slot run and the cleanup are measured on its sandbox, whose lanes no call shares
  direct: { 'workspace-tools': {} },
  tools: { 'workspace-tools': {} },
  policy: { 'workspace-tools': {}, 'timeout-policy': {}, 'spill-policy': {}, 'repeat-tool-reminder': {} },
  hooks: { 'workspace-tools': {}, 'timeout-policy': {}, 'spill-policy': {}, 'repeat-tool-reminder': {}, 'hooks-claude-code': {} },
  default: { 'workspace-tools': {}, 'timeout-policy': {}, 'spill-policy': {}, 'repeat-tool-reminder': {}, 'hooks-claude-code': {}, 'claude-code-permissions': { preset: 'on-request' } },
}

const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS))
const runner = (argv, cwd, slot) => startProcess({ argv, cwd, env: sandboxEnv(cwd), slot, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250 }).done

export async function run() {
  if (process.platform !== 'linux') return []
  const tmp = tempDir('dsh-bench-steps-')
  const workspace = realpathSync(tmp.dir)
  const kernels = {}
  for (const [name, plugins] of Object.entries(SETS)) {
    const kernel = await createKernel({
      dataDir: join(workspace, `.dsh-${name}`),
      sandbox: { mode: 'read-only', workspace },
      plugins: Object.fromEntries(Object.entries(plugins).map(([k, v]) => [k, k === 'workspace-tools' ? { workspace } : v])),
    })
    const session = kernel.openSession({ id: `steps-${name}` })
    session.beginTurn()
    kernels[name] = { kernel, session, id: 0 }
  }
  try {
    const sandbox = kernels.direct.kernel.ctx.sandbox
    const times = { bare: [], confine: [], slot: [], cleanup: [], ...Object.fromEntries(Object.keys(SETS).filter((k) => k !== 'direct').map((k) => [k, []])) }
    const cpu = Object.fromEntries(Object.keys(times).map((k) => [k, []]))
    const cpuMs = (since) => {
      const u = process.cpuUsage(since)
      return (u.user + u.system) / 1000
    }
    let backend
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const keep = i >= WARMUP
      await pause()
      let t = now()
      let c = process.cpuUsage()
      await runner(ARGV, workspace)
      if (keep) times.bare.push(now() - t), cpu.bare.push(cpuMs(c))
      await pause()
      t = now()
      c = process.cpuUsage()
      const confined = await sandbox.confine(ARGV, { mode: 'read-only', workspace, network: 'off' })
      const t1 = now()
      const c1 = process.cpuUsage()
      const out = await runner(confined.argv, workspace, confined.slot)
      const t2 = now()
      const c2 = process.cpuUsage()
      confined.cleanup()
      const t3 = now()
      if (out.exitCode !== 0) throw new Error(`exited ${out.exitCode}: ${out.stderr.text()}`)
      backend = confined.backend
      if (keep) {
        times.confine.push(t1 - t), times.slot.push(t2 - t1), times.cleanup.push(t3 - t2)
        cpu.confine.push((c1.user + c1.system - c.user - c.system) / 1000)
        cpu.slot.push((c2.user + c2.system - c1.user - c1.system) / 1000)
        cpu.cleanup.push(cpuMs(c2))
      }
      for (const [name, k] of Object.entries(kernels)) {
        if (name === 'direct') continue
        await pause()
        t = now()
        c = process.cpuUsage()
        const r = await k.kernel.execute({ callId: `s${k.id++}`, name: 'bash', arguments: { command: 'true' }, session: k.session })
        if (keep) times[name].push(now() - t), cpu[name].push(cpuMs(c))
        if (r.isError) throw new Error(`bash failed: ${r.content.map((c) => c.text).join('')}`)
      }
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))
    const u = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)]))
    const key = { bare: 'bare', confine: 'confine', slot_run: 'slot', cleanup: 'cleanup', 'call.tools': 'tools', 'call.policy': 'policy', 'call.hooks': 'hooks', 'call.default': 'default' }
    const row = (name, value, note) => ({ name: `tools.steps.${name}`, value, unit: 'ms', note: `${note}; node CPU ${u[key[name]].toFixed(3)} ms` })
    return [
      row('bare', m.bare, 'a bare sh -c true through the process runner'),
      row('confine', m.confine, `ctx.sandbox.confine alone (${backend}, read-only)`),
      row('slot_run', m.slot, 'the command run in the view\'s slot (the key taken, the argv sent, the exit awaited)'),
      row('cleanup', m.cleanup, 'the lease released, the next slot scheduled'),
      row('call.tools', m.tools, `a whole bash call, workspace-tools alone; over confine+run+cleanup: +${(m.tools - m.confine - m.slot - m.cleanup).toFixed(2)} ms`),
      row('call.policy', m.policy, `+ timeout-policy, spill-policy, repeat-tool-reminder: +${(m.policy - m.tools).toFixed(2)} ms`),
      row('call.hooks', m.hooks, `+ hooks-claude-code (no hook configured): +${(m.hooks - m.policy).toFixed(2)} ms`),
      row('call.default', m.default, `+ claude-code-permissions (on-request, no rules): +${(m.default - m.hooks).toFixed(2)} ms; the default set over a bare spawn: ${(m.default / m.bare).toFixed(2)}x`),
    ]
  } finally {
    for (const { kernel } of Object.values(kernels)) await kernel.dispose()
    tmp.remove()
  }
}
