// mcp_servers.call_overhead_us: an upstream echo call through dsh (the pipeline, mcp-servers, the
// confined fixture server) minus the same call made directly with the SDK client on an unconfined
// copy of the same server, same run, in alternating rounds.
// mcp_servers.start_ms: starting a confined stdio server (confine, spawn, initialize, tools/list),
// with the same start unconfined (danger-full-access, the same code path) as the baseline.
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { createKernel } from 'dsh'
import { SandboxService } from '@dsh/sandbox'
import { connect } from '../plugins/mcp-servers/lib/connect.js'
import { StderrTail } from '../plugins/mcp-servers/lib/stderr-tail.js'
import { median, now, perIteration, tempDir } from './lib.js'

const FIXTURE = fileURLToPath(new URL('../test/fixtures/mcp-servers/fixture-server.mjs', import.meta.url))

async function callOverhead(workspace) {
  const kernel = await createKernel({ dataDir: `${workspace}/.dsh`, sandbox: { workspace }, plugins: { 'mcp-servers': { servers: { fix: { command: process.execPath, args: [FIXTURE] } } } } })
  const session = kernel.openSession({ id: 'bench' })
  session.beginTurn()
  const direct = new Client({ name: 'bench', version: '1' })
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], cwd: workspace, stderr: 'ignore' }))
  let n = 0
  const viaDsh = async () => {
    const r = await kernel.execute({ callId: `c${++n}`, name: 'mcp__fix__echo', arguments: { text: 'hi' }, session })
    if (r.isError) throw new Error(`the echo call failed: ${r.error?.message}`)
  }
  const viaSdk = () => direct.callTool({ name: 'echo', arguments: { text: 'hi' } })
  const opts = { batch: 100, samples: 5, warmup: 1 }
  const dshRounds = []
  const sdkRounds = []
  for (let round = 0; round < 7; round++) {
    dshRounds.push(await perIteration(viaDsh, opts))
    sdkRounds.push(await perIteration(viaSdk, opts))
  }
  const backend = kernel.ctx.sandbox.status().chosen
  await direct.close()
  await kernel.dispose()
  return { dsh: median(dshRounds), sdk: median(sdkRounds), backend }
}

async function startTimes(workspace) {
  const sandbox = new SandboxService(new Context(), { workspace })
  const session = { write() {} }
  const start = async (mode) => {
    const t = now()
    const c = await connect('fix', { command: process.execPath, args: [FIXTURE] }, {
      sandbox, workspace, mode, initializeTimeoutMs: 20_000, maxMessageBytes: 1 << 24, stderr: new StderrTail(4096), recorder: () => ({ session, callId: 'bench' }),
    })
    const ms = now() - t
    await c.client.close()
    c.confined?.cleanup()
    return ms
  }
  await start('read-only') // probe and warm-up
  const confined = []
  const bare = []
  for (let i = 0; i < 7; i++) {
    confined.push(await start('read-only'))
    bare.push(await start('danger-full-access'))
  }
  return { confined: median(confined), bare: median(bare), backend: sandbox.status().chosen }
}

export async function run() {
  const tmp = tempDir('dsh-bench-mcp-')
  try {
    const workspace = realpathSync(tmp.dir)
    const call = await callOverhead(workspace)
    const start = await startTimes(workspace)
    return [
      {
        name: 'mcp_servers.call_overhead_us',
        value: (call.dsh - call.sdk) * 1000,
        unit: 'us',
        target: '<= 100',
        baseline: { name: 'direct SDK call', value: call.sdk * 1000, unit: 'us' },
        note: `through dsh ${(call.dsh * 1000).toFixed(0)} us (server confined by ${call.backend}; the direct one unconfined)`,
      },
      {
        name: 'mcp_servers.start_ms',
        value: start.confined,
        unit: 'ms',
        baseline: { name: 'unconfined start', value: start.bare, unit: 'ms' },
        note: `confined by ${start.backend}: confine, spawn, initialize, tools/list`,
      },
    ]
  } finally {
    tmp.remove()
  }
}
