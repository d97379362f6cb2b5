// The child of memory.kernel_rss_mb and of the session leak test: a kernel with the built-in
// default set (in a temporary workspace) and 1,000 more tools, making sequential calls through
// the pipeline in one session, and at each checkpoint, after two forced collections, one JSON
// line of its memory. Needs the build (lib/) and --expose-gc.
//   node --expose-gc bench/children/memory-run.js <checkpoint calls, comma-separated> [tools] [tools called]
//   node --expose-gc bench/children/memory-run.js --bare     the baseline: the same process, nothing imported
// The tools are read-only no-ops (so the default set's permission rules allow them without asking).
// Each tool has a schema of its own (as tools from different servers do), so each call of a new
// tool compiles a validator: the 1,000 validators are part of the figure.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function measure(calls) {
  globalThis.gc()
  globalThis.gc()
  const m = process.memoryUsage()
  const mb = (bytes) => Math.round((bytes / 2 ** 20) * 100) / 100
  return { calls, rssMb: mb(m.rss), heapTotalMb: mb(m.heapTotal), heapUsedMb: mb(m.heapUsed), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers) }
}

if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc')
if (process.argv[2] === '--bare') {
  process.stdout.write(JSON.stringify(measure(0)) + '\n')
  process.exit(0)
}

// The host's call ids are made as dsh mcp makes them from a request id, with JSON.stringify: a
// number a template or String() turns into a string stays in V8's number-to-string cache until
// another number takes its slot, so `c${n}` made every call leave a string that outlived two young
// collections — 48 bytes a call of the host's own, enough to double V8's young generation (16 to
// 32 MB) before 100,000 calls. DSH_MEMORY_TEMPLATE_IDS=1 makes them with the template again.
const callIdOf = process.env.DSH_MEMORY_TEMPLATE_IDS === '1' ? (n) => `c${n}` : (n) => `c${JSON.stringify(n)}`

const checkpoints = process.argv[2].split(',').map(Number)
const toolCount = Number(process.argv[3] ?? 1000)
// the calls go round the first `called` tools (default: all of them)
const called = Number(process.argv[4] ?? toolCount)
const dir = mkdtempSync(join(tmpdir(), 'dsh-memory-'))
process.chdir(dir)
const { createKernel } = await import('dsh')
const { defaultSet } = await import('../../core/dsh/lib/config/default-set.js')
const kernel = await createKernel({ ...defaultSet(), dataDir: join(dir, '.dsh') })
try {
  kernel.ctx.plugin({
    name: 'memory-bench',
    inject: ['tools'],
    apply(ctx) {
      for (let i = 0; i < toolCount; i++) {
        ctx.tools.register({ name: `tool${i}`, description: `tool ${i}`, parameters: { type: 'object', properties: { [`n${i}`]: { type: 'number' } } }, annotations: { readOnlyHint: true }, execute: () => 'ok' })
      }
    },
  })
  await kernel.ctx.lifecycle.flush()
  const session = kernel.openSession({ id: 'memory' })
  session.beginTurn()
  let done = 0
  for (const target of checkpoints) {
    for (; done < target; done++) {
      const result = await kernel.execute({ callId: callIdOf(done), name: `tool${done % called}`, arguments: { [`n${done % called}`]: done }, session })
      if (result.isError) throw new Error(`call ${done} failed: ${JSON.stringify(result)}`)
    }
    await session.flush()
    process.stdout.write(JSON.stringify(measure(done)) + '\n')
  }
} finally {
  await kernel.dispose()
  rmSync(dir, { recursive: true, force: true })
}
