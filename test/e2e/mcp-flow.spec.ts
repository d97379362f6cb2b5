/**
 * `dsh mcp`'s resources against its client, over the real process: a client
 * that stops reading stalls its own calls and the server's memory stays
 * bounded (VmRSS sampled from /proc); no more than `mcp.maxConcurrentCalls`
 * calls run at once; an error that quotes a huge argument stays small.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { errorCode, fixture, mcpServers, text, until, Workspace } from './mcp-helpers.js'
import { rawServer } from './mcp-raw.js'

const start = mcpServers()

let ws: Workspace | undefined
afterEach(() => {
  ws?.cleanup()
  ws = undefined
})

/** A ~900 KB text file of 2,000 lines (what `read` returns whole). */
function bigFile(dir: string): string {
  const line = 'abcdefghij'.repeat(45)
  writeFileSync(join(dir, 'big.txt'), `${line}\n`.repeat(2000))
  return 'big.txt'
}

describe('dsh mcp: flow control', () => {
  it('a client that stops reading stalls its own calls: 200 reads of a 900 KB file, the server stays under 250 MB RSS', async () => {
    const MiB = 1024 * 1024
    ws = new Workspace({ plugins: { 'workspace-tools': {} }, mcp: { maxBytesInFlight: 8 * MiB, maxConcurrentCalls: 4 } })
    const file = bigFile(ws.dir)
    // stdout never read: the pipe fills, then the server's own buffers would
    const server = rawServer(['--config', ws.config], ws.dir, { read: false })
    server.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
    server.send({ method: 'notifications/initialized' })
    const log = join(ws.dir, '.dsh/sessions')
    await until(() => server.stderr().includes('dsh mcp: session '), 'the session to open')
    const before = server.rssMb()
    for (let i = 0; i < 200; i++) server.send({ id: 10 + i, method: 'tools/call', params: { name: 'read', arguments: { file_path: file } } })
    // sampled until the session log stops growing for 2 s (the server stalled) or holds all 200
    // results (it did not); bounded by the test's own timeout either way
    let peak = 0
    let size = -1
    let still = 0
    const logSize = () => {
      try {
        const [name] = readdirSync(log).filter((f) => f.endsWith('.jsonl'))
        return name ? statSync(join(log, name)).size : 0
      } catch {
        return 0
      }
    }
    while (still < 20) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      peak = Math.max(peak, server.rssMb())
      const now = logSize()
      still = now === size ? still + 1 : 0
      size = now
      if (now > 200 * 900_000) break
    }
    console.info(`mcp flow: RSS ${before.toFixed(0)} MB at start, peak ${peak.toFixed(0)} MB with a client that does not read (log ${(size / 1e6).toFixed(0)} MB)`)
    // held: far fewer results than calls were produced; and bounded
    expect(size).toBeLessThan(100 * 900_000)
    expect(peak).toBeLessThan(250)
    // reading again, the calls go on: more answers come
    let answers = 0
    server.child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) answers++
    })
    await until(() => answers >= 40, 'answers once the client reads again', 60_000)
    server.child.kill('SIGTERM')
    expect((await server.exited).code).toBe(0)
  })

  it('a client that reads: 300 concurrent reads of a 900 KB file (1.8 MB answers), the server stays under 600 MB RSS', async () => {
    // Why 600 MB: the server holds its base (~100 MB), the session's window (RECENT_BYTES, 16-20 MiB
    // of lines), the bytes in flight (32 MiB) and the 16 calls running (each a few copies of its
    // 1.8 MB result), ~200 MB live, and V8 lets garbage of that size pile up to about twice that
    // before a full collection: 370-500 MB measured. When the window kept 10,000 events whatever
    // their size, it alone held the 300 results (~540 MB): 913-949 MB.
    // the whole file in each answer: read's own budget (maxReadOutputBytes) raised past its size
    const { ws: workspace, conn, client } = await start({ plugins: { 'workspace-tools': { maxReadOutputBytes: 2_000_000 } } })
    const file = bigFile(workspace.dir)
    const pid = conn.transport.pid!
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
    const before = rss()
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50)
    let answered = 0
    let errors = 0
    try {
      // each result is dropped once counted: the client holds no 300 answers itself
      await Promise.all(Array.from({ length: 300 }, () => client.callTool({ name: 'read', arguments: { file_path: file } }, undefined, { timeout: 110_000 }).then((result) => {
        answered++
        if (result.isError || JSON.stringify(result).length < 1_800_000) errors++
      })))
    } finally {
      clearInterval(sampler)
    }
    peak = Math.max(peak, rss())
    console.info(`mcp flow: RSS ${before.toFixed(0)} MB at start, peak ${peak.toFixed(0)} MB over 300 concurrent reads with a reading client`)
    expect(answered).toBe(300)
    expect(errors).toBe(0)
    expect(peak).toBeLessThan(600)
  }, 120_000)

  it('at most mcp.maxConcurrentCalls calls run; a cancelled one frees its place', async () => {
    ws = new Workspace({ plugins: { [fixture('slow-tool.mjs')]: { concurrency: 'parallel' } }, mcp: { maxConcurrentCalls: 2 } })
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    // ids from 1: SDK 1.32 ignores notifications/cancelled for request id 0 (typescript-sdk#2283)
    for (let i = 1; i <= 5; i++) server.send({ id: i, method: 'tools/call', params: { name: 'slow', arguments: {} } })
    const started = () => ws!.events().filter((e) => e.type === 'slow/started').map((e) => e.data.callId)
    await until(() => started().length >= 2, 'two calls to start')
    // a ping answered now went through the same reader after every call: the others were read and are waiting
    server.send({ id: 'p', method: 'ping' })
    await server.reply('p')
    expect(started()).toEqual(['mcp-1', 'mcp-2'])
    server.send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } })
    await until(() => started().length >= 3, 'the third call to start')
    expect(started()).toEqual(['mcp-1', 'mcp-2', 'mcp-3'])
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
    const results = ws.events().filter((e) => e.type === 'tool/result')
    // every call is recorded: the running ones aborted, the waiting ones aborted before dispatch
    expect(results.map((e) => e.data.callId).sort()).toEqual(['mcp-1', 'mcp-2', 'mcp-3', 'mcp-4', 'mcp-5'])
    expect(results.filter((e) => e.data.callId === 'mcp-4' || e.data.callId === 'mcp-5').map((e) => e.data.error.code)).toEqual(['ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
  })
})

describe('dsh mcp: errors quote a bounded part of what was sent', () => {
  it('a 9 MB file_path, a 1 MB tool name, a 1 MB argument key, a 1 MB grep pattern: each error is a few hundred bytes', async () => {
    const { client } = await start({ plugins: { 'workspace-tools': {} } })
    const huge = (n: number) => 'p'.repeat(n)
    const cases = [
      { name: 'read', arguments: { file_path: huge(9_000_000) } },
      { name: 'read', arguments: { file_path: `/tmp/${huge(9_000_000)}` } },
      { name: huge(1_000_000), arguments: {} },
      { name: 'read', arguments: { file_path: 'x', [huge(1_000_000)]: 1 } },
      { name: 'grep', arguments: { pattern: `(${huge(1_000_000)}` } },
      { name: 'glob', arguments: { pattern: `../${huge(1_000_000)}` } },
    ]
    for (const call of cases) {
      const result = await client.callTool(call)
      expect(result.isError, call.name.slice(0, 10)).toBe(true)
      expect(errorCode(result)).toMatch(/^(TOOL_FAILED|UNKNOWN_TOOL|INVALID_ARGS)$/)
      expect(JSON.stringify(result).length, `${call.name.slice(0, 10)}: ${text(result).slice(0, 200)}`).toBeLessThan(2000)
      expect(text(result)).toMatch(/characters\)/)
    }
  })
})
