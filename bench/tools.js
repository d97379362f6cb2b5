// tools.bash_ratio: a `bash {command: 'true'}` call through the whole pipeline (workspace-tools and
// the policy plugins loaded, session log on, the local chain's backend) divided by confining the same
// argv with ctx.sandbox.confine and spawning it directly with execa as the tool does. The absolute
// figure is reported against a bare `sh -c true` spawned with execa. All three are measured in turns.
import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { createKernel } from 'dsh'
import { sandboxEnv } from '@dsh/sandbox'
import { median, now, tempDir } from './lib.js'

const SAMPLES = 120
const WARMUP = 15
const ARGV = ['/bin/sh', '-c', 'true']

// the execa the bash tool itself runs (9.x, through @dsh/sandbox's process runner; the root's is an older CommonJS one)
const toolRequire = createRequire(createRequire(import.meta.url).resolve('@dsh/sandbox/package.json'))
const execaDir = toolRequire.resolve.paths('execa').map((dir) => join(dir, 'execa')).find((dir) => existsSync(join(dir, 'index.js')))
const { execa } = await import(pathToFileURL(join(execaDir, 'index.js')).href)

async function spawnMs(argv, cwd) {
  const start = now()
  const r = await execa(argv[0], argv.slice(1), { cwd, env: sandboxEnv(cwd), extendEnv: false, stdin: 'ignore', reject: false, detached: true })
  const elapsed = now() - start
  if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${r.exitCode ?? r.signal}: ${r.stderr}`)
  return elapsed
}

export async function run() {
  if (process.platform !== 'linux') return []
  const tmp = tempDir('dsh-bench-tools-')
  const workspace = realpathSync(tmp.dir)
  const kernel = await createKernel({
    dataDir: join(workspace, '.dsh'),
    sandbox: { mode: 'read-only', workspace },
    plugins: { 'workspace-tools': { workspace }, 'timeout-policy': {}, 'repeat-tool-reminder': {}, 'spill-policy': {} },
  })
  try {
    const session = kernel.openSession({ id: 'bench-tools' })
    session.beginTurn()
    const sandbox = kernel.ctx.sandbox
    let backend
    let id = 0
    const throughTool = async () => {
      const start = now()
      const result = await kernel.execute({ callId: `b${id++}`, name: 'bash', arguments: { command: 'true' }, session })
      const elapsed = now() - start
      if (result.isError) throw new Error(`bash failed: ${result.content.map((c) => c.text).join('')}`)
      return elapsed
    }
    const direct = async () => {
      const start = now()
      const confined = await sandbox.confine(ARGV, { mode: 'read-only', workspace, network: 'off' })
      backend = confined.backend
      try {
        await spawnMs(confined.argv, workspace)
      } finally {
        confined.cleanup()
      }
      return now() - start
    }
    const bare = () => spawnMs(ARGV, workspace)
    const times = { tool: [], direct: [], bare: [] }
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const t = await throughTool()
      const d = await direct()
      const b = await bare()
      if (i < WARMUP) continue
      times.tool.push(t)
      times.direct.push(d)
      times.bare.push(b)
    }
    const tool = median(times.tool)
    const confinedMs = median(times.direct)
    const bareMs = median(times.bare)
    return [
      {
        name: 'tools.bash_ratio', value: tool / confinedMs, unit: 'x', target: '<= 1.15',
        baseline: { name: `confine + execa of the same argv (${backend})`, value: confinedMs, unit: 'ms' },
        note: `${tool.toFixed(2)} ms a bash call through the pipeline; bare sh -c true ${bareMs.toFixed(2)} ms (${(tool / bareMs).toFixed(2)}x); medians of ${SAMPLES}, in turns`,
      },
    ]
  } finally {
    await kernel.dispose()
    tmp.remove()
  }
}
