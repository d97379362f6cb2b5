// tools.bash_ratio: a `bash {command: 'true'}` call through the whole pipeline (workspace-tools and
// the policy plugins loaded, session log on, the local chain's backend) divided by confining the same
// argv with ctx.sandbox.confine and running it directly with the sandbox's process runner as the tool
// does (through the view's slot, built ahead, as the tool's run takes it): the pipeline's share.
// tools.bash_vs_bare_ratio: the same call through the whole default set (hooks-claude-code and
// claude-code-permissions too) divided by a bare `sh -c true` run by the same process runner.
// Every side is measured in turns, each call after a pause as in a session (a model answers between
// calls; the slot the previous call's cleanup started is ready by then).
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from 'dsh'
import { sandboxEnv, startProcess } from '@dsh/sandbox'
import { median, now, tempDir } from './lib.js'

const SAMPLES = 80
const WARMUP = 10
const PAUSE_MS = 25
const ARGV = ['/bin/sh', '-c', 'true']
// the default set (core/dsh/src/default-set.ts), on the bench's workspace
const DEFAULT_SET = { 'workspace-tools': {}, 'timeout-policy': {}, 'spill-policy': {}, 'repeat-tool-reminder': {}, 'hooks-claude-code': {}, 'claude-code-permissions': { preset: 'on-request' } }

const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS))

async function runMs(argv, cwd, slot) {
  const start = now()
  const r = await startProcess({ argv, cwd, env: sandboxEnv(cwd), slot, maxOutputBytes: 1 << 20, killGraceMs: 2000, pipeGraceMs: 250 }).done
  const elapsed = now() - start
  if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${r.exitCode ?? r.signal}: ${r.stderr.text()}${r.spawnError ?? ''}`)
  return elapsed
}

async function kernelOn(workspace, plugins, name) {
  const kernel = await createKernel({
    dataDir: join(workspace, `.dsh-${name}`),
    sandbox: { mode: 'read-only', workspace },
    plugins: Object.fromEntries(Object.entries(plugins).map(([k, v]) => [k, k === 'workspace-tools' ? { ...v, workspace } : v])),
  })
  const session = kernel.openSession({ id: `bench-tools-${name}` })
  session.beginTurn()
  let id = 0
  const call = async () => {
    const start = now()
    const result = await kernel.execute({ callId: `b${id++}`, name: 'bash', arguments: { command: 'true' }, session })
    const elapsed = now() - start
    if (result.isError) throw new Error(`bash failed: ${result.content.map((c) => c.text).join('')}`)
    return elapsed
  }
  return { kernel, call }
}

export async function run() {
  if (process.platform !== 'linux') return []
  const tmp = tempDir('dsh-bench-tools-')
  const workspace = realpathSync(tmp.dir)
  const policyOnly = await kernelOn(workspace, { 'workspace-tools': {}, 'timeout-policy': {}, 'repeat-tool-reminder': {}, 'spill-policy': {} }, 'policy')
  const whole = await kernelOn(workspace, DEFAULT_SET, 'default')
  try {
    const sandbox = policyOnly.kernel.ctx.sandbox
    let backend
    const direct = async () => {
      const start = now()
      const confined = await sandbox.confine(ARGV, { mode: 'read-only', workspace, network: 'off' })
      backend = confined.backend
      try {
        await runMs(confined.argv, workspace, confined.slot)
      } finally {
        confined.cleanup()
      }
      return now() - start
    }
    const sides = { tool: policyOnly.call, direct, whole: whole.call, bare: () => runMs(ARGV, workspace) }
    const times = Object.fromEntries(Object.keys(sides).map((k) => [k, []]))
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      for (const [name, side] of Object.entries(sides)) {
        await pause()
        const ms = await side()
        if (i >= WARMUP) times[name].push(ms)
      }
    }
    const [tool, confinedMs, wholeMs, bareMs] = ['tool', 'direct', 'whole', 'bare'].map((k) => median(times[k]))
    return [
      {
        name: 'tools.bash_ratio', value: tool / confinedMs, unit: 'x', target: '<= 1.15',
        baseline: { name: `confine + the process runner on the same argv (${backend}, through its slot)`, value: confinedMs, unit: 'ms' },
        note: `${tool.toFixed(2)} ms a bash call through the pipeline (workspace-tools and the policy plugins); medians of ${SAMPLES}, in turns, ${PAUSE_MS} ms apart`,
      },
      {
        name: 'tools.bash_vs_bare_ratio', value: wholeMs / bareMs, unit: 'x', target: '<= 1.3',
        baseline: { name: 'bare sh -c true through the same process runner', value: bareMs, unit: 'ms' },
        note: `${wholeMs.toFixed(2)} ms a bash call through the whole default set (${backend}); medians of ${SAMPLES}, in turns, ${PAUSE_MS} ms apart`,
      },
    ]
  } finally {
    await policyOnly.kernel.dispose()
    await whole.kernel.dispose()
    tmp.remove()
  }
}
