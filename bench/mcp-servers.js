// mcp_servers.call_overhead_us: an upstream echo call through dsh (the pipeline, mcp-servers, the
// confined fixture server) minus the same call made directly with the SDK client on an unconfined
// copy of the same server, same run, in alternating rounds. The note splits it: the same call through
// dsh to the server unconfined (danger-full-access), and a local tool of the same shape (an async body
// answering content and a value under the same output schema, recording the same facts) through the
// same pipeline — what any tool pays; and the dsh process's CPU per call (process.cpuUsage), which a
// loaded machine disturbs less than the wall clock.
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

/** Median ms per iteration (as perIteration) and the process's CPU µs per call over the same batches. */
async function timed(fn, rounds, opts) {
  const before = process.cpuUsage()
  let calls = 0
  const ms = await perIteration(async (i) => {
    calls++
    await fn(i)
  }, opts)
  const cpu = process.cpuUsage(before)
  rounds.push({ ms, cpuUs: (cpu.user + cpu.system) / calls })
}

async function callOverhead(workspace) {
  const servers = { fix: { command: process.execPath, args: [FIXTURE] }, bare: { command: process.execPath, args: [FIXTURE], sandbox: { mode: 'danger-full-access' } } }
  const kernel = await createKernel({ dataDir: `${workspace}/.dsh`, sandbox: { workspace }, plugins: { 'mcp-servers': { servers } } })
  const echo = kernel.ctx.tools.get('mcp__fix__echo')
  const facts = { mcpServer: 'fix', sandbox: { backend: 'bwrap', enforcement: 'full', unenforced: [] } }
  kernel.ctx.tools.register({
    name: 'local_echo', description: 'echo, in process', parameters: echo.parameters, outputSchema: echo.outputSchema, concurrency: 'parallel',
    async execute(args, call) {
      await new Promise((resolve) => setImmediate(resolve))
      call.record(facts)
      return { content: [{ type: 'text', text: args.text }], value: { echoed: args.text } }
    },
  })
  const session = kernel.openSession({ id: 'bench' })
  session.beginTurn()
  const direct = new Client({ name: 'bench', version: '1' })
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [FIXTURE], cwd: workspace, stderr: 'ignore' }))
  let n = 0
  const viaDsh = (name) => async () => {
    const r = await kernel.execute({ callId: `c${++n}`, name, arguments: { text: 'hi' }, session })
    if (r.isError) throw new Error(`the ${name} call failed: ${r.error?.message}`)
  }
  const paths = {
    dsh: viaDsh('mcp__fix__echo'),
    sdk: () => direct.callTool({ name: 'echo', arguments: { text: 'hi' } }),
    bare: viaDsh('mcp__bare__echo'),
    local: viaDsh('local_echo'),
  }
  const opts = { batch: 100, samples: 5, warmup: 1 }
  const rounds = Object.fromEntries(Object.keys(paths).map((k) => [k, []]))
  for (let round = 0; round < 7; round++) for (const [k, fn] of Object.entries(paths)) await timed(fn, rounds[k], opts)
  const backend = kernel.ctx.sandbox.status().chosen
  await direct.close()
  await kernel.dispose()
  const of = (k) => ({ ms: median(rounds[k].map((r) => r.ms)), cpuUs: median(rounds[k].map((r) => r.cpuUs)) })
  return { ...Object.fromEntries(Object.keys(paths).map((k) => [k, of(k)])), backend }
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

const us = (ms) => (ms * 1000).toFixed(0)

export async function run() {
  const tmp = tempDir('dsh-bench-mcp-')
  try {
    const workspace = realpathSync(tmp.dir)
    const call = await callOverhead(workspace)
    const start = await startTimes(workspace)
    return [
      {
        name: 'mcp_servers.call_overhead_us',
        value: (call.dsh.ms - call.sdk.ms) * 1000,
        unit: 'us',
        target: '<= 100',
        baseline: { name: 'direct SDK call', value: call.sdk.ms * 1000, unit: 'us' },
        note: `through dsh ${us(call.dsh.ms)} us (server confined by ${call.backend}; the direct one unconfined); to it unconfined ${us(call.bare.ms)} us; `
          + `a local tool of the same shape through the pipeline ${us(call.local.ms)} us; CPU per call: dsh ${call.dsh.cpuUs.toFixed(0)}, direct ${call.sdk.cpuUs.toFixed(0)}, local tool ${call.local.cpuUs.toFixed(0)} us`,
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
