/**
 * `dsh mcp` ends promptly (DESIGN §16.1: within 100 ms of SIGINT, SIGTERM or
 * stdin closing), over the real process: the calls in flight aborted and
 * recorded, the session log closed with its last line whole, even when a
 * body ignores its cancellation; and with `--otel` and no collector, the
 * last flush is bounded (mcp.otelFlushTimeoutMs) and said in one short line.
 * The figures are asserted generously (this machine is shared) and printed.
 */
import { createServer } from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixture, until, Workspace } from './mcp-helpers.js'
import { rawServer, type RawServer } from './mcp-raw.js'

beforeAll(assertBuilt)

let ws: Workspace | undefined
afterEach(() => {
  ws?.cleanup()
  ws = undefined
})

/** The session log's lines, each parsed (a torn last line throws). */
function logLines(dir: string): any[] {
  const sessions = join(dir, '.dsh/sessions')
  const [file] = readdirSync(sessions).filter((f) => f.endsWith('.jsonl'))
  const text = readFileSync(join(sessions, file!), 'utf8')
  expect(text.endsWith('\n')).toBe(true)
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

async function stop(server: RawServer, how: 'SIGINT' | 'SIGTERM' | 'stdin'): Promise<number> {
  const at = performance.now()
  if (how === 'stdin') server.child.stdin.end()
  else server.child.kill(how)
  const exit = await server.exited
  expect(exit.code).toBe(0)
  return exit.at - at
}

describe('dsh mcp: prompt shutdown', () => {
  for (const how of ['SIGINT', 'SIGTERM', 'stdin'] as const) {
    it(`${how}: the calls in flight are aborted and recorded, the log closed whole, exit 0 at once`, async () => {
      ws = new Workspace({ plugins: { [fixture('slow-tool.mjs')]: { concurrency: 'parallel' } } })
      const server = rawServer(['--config', ws.config], ws.dir)
      await server.initialize()
      for (let i = 1; i <= 3; i++) server.send({ id: i, method: 'tools/call', params: { name: 'slow', arguments: {} } })
      await until(() => ws!.events().filter((e) => e.type === 'slow/started').length === 3, 'three calls to start')
      const ms = await stop(server, how)
      console.info(`mcp shutdown (${how}, 3 calls in flight): exit ${ms.toFixed(0)} ms after it`)
      expect(ms).toBeLessThan(1000)
      const lines = logLines(ws.dir)
      expect(lines.filter((e) => e.type === 'tool/result').map((e) => e.data.error?.code)).toEqual(['ABORTED', 'ABORTED', 'ABORTED'])
      expect(lines.find((e) => e.type === 'mcp/closed')?.data).toEqual({ reason: how === 'stdin' ? 'stdin closed' : how })
      expect(lines.at(-1)?.type).toBe('turn/end')
    })
  }

  it('a body that ignores its cancellation does not hold the exit: it is named in mcp/closed as abandoned', async () => {
    ws = new Workspace({ plugins: { [fixture('stubborn-tool.mjs')]: {} } })
    const server = rawServer(['--config', ws.config], ws.dir)
    await server.initialize()
    server.send({ id: 1, method: 'tools/call', params: { name: 'stubborn', arguments: { ms: 20_000 } } })
    await until(() => ws!.events().some((e) => e.type === 'stubborn/started'), 'the call to start')
    const ms = await stop(server, 'SIGINT')
    console.info(`mcp shutdown (SIGINT, a body ignoring it): exit ${ms.toFixed(0)} ms after it`)
    expect(ms).toBeLessThan(1000)
    const lines = logLines(ws.dir)
    expect(lines.find((e) => e.type === 'mcp/closed')?.data).toEqual({ reason: 'SIGINT', abandoned: ['mcp-1'] })
    expect(lines.at(-1)?.type).toBe('turn/end')
  })
})

describe('dsh mcp: a plugin that does not let go', () => {
  /** whether `pid` is still a process (a zombie counts as gone: it runs nothing) */
  function alive(pid: number): boolean {
    try {
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
    } catch {
      return false
    }
  }

  for (const how of ['SIGINT', 'stdin'] as const) {
    it(`${how}: a dispose that never ends does not hold the exit, and the child it left running is killed; the log is closed whole`, async () => {
      ws = new Workspace({ plugins: { [fixture('echo-tool.mjs')]: {} } })
      const pidFile = join(ws.dir, 'child.pid')
      ws.write({ plugins: { [fixture('echo-tool.mjs')]: {}, [fixture('stuck-dispose.mjs')]: { pidFile } } })
      const server = rawServer(['--config', ws.config], ws.dir)
      await server.initialize()
      server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { command: 'x' } } })
      await server.reply(1)
      const pid = Number(readFileSync(pidFile, 'utf8'))
      expect(alive(pid)).toBe(true)
      const ms = await stop(server, how)
      console.info(`mcp shutdown (${how}, a dispose that never ends): exit ${ms.toFixed(0)} ms after it`)
      await until(() => !alive(pid), `the plugin's child ${pid} to be gone`, 5000)
      const lines = logLines(ws.dir)
      expect(lines.find((e) => e.type === 'mcp/closed')?.data).toEqual({ reason: how === 'stdin' ? 'stdin closed' : how })
      expect(lines.at(-1)?.type).toBe('turn/end')
      expect(server.stderr()).toMatch(/dsh mcp: killed 1 child process\(es\) still running at exit/)
    })
  }
})

describe('dsh mcp --otel: a collector that is down', () => {
  /** A port on 127.0.0.1 nothing listens on (bound, then closed). */
  async function closedPort(): Promise<number> {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    return port
  }

  for (const flush of [undefined, 300]) {
    it(`the exit waits at most the flush bound (${flush ?? 'default 1000'} ms) and says so in one short line`, async () => {
      ws = new Workspace({ plugins: { [fixture('echo-tool.mjs')]: {} }, ...(flush ? { mcp: { otelFlushTimeoutMs: flush } } : {}) })
      const port = await closedPort()
      const server = rawServer(['--config', ws.config, '--otel'], ws.dir, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_TRACES_EXPORTER: 'otlp' } })
      await server.initialize()
      server.send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { command: 'x' } } })
      await server.reply(1)
      const ms = await stop(server, 'stdin')
      console.info(`mcp --otel shutdown, collector down, flush bound ${flush ?? 1000} ms: exit ${ms.toFixed(0)} ms after stdin closed`)
      expect(ms).toBeLessThan((flush ?? 1000) + 1500)
      const traces = server.stderr().split('\n').filter((l) => l.startsWith('dsh mcp: traces: '))
      expect(traces).toContain(`dsh mcp: traces: the last spans were not exported within ${flush ?? 1000} ms (mcp.otelFlushTimeoutMs) and are dropped`)
      for (const line of traces) expect(line.length).toBeLessThan(300)
      // a stack frame is a line of its own (`    at fn (file:line)`); "killed … at exit (pid …)" is not one
      expect(server.stderr()).not.toMatch(/"stack"|^\s+at \S+ \(/m)
    })
  }

  it('each failed export is one short line, at most 5 in 10 s, then a count', async () => {
    ws = new Workspace({ plugins: { [fixture('echo-tool.mjs')]: {} } })
    const port = await closedPort()
    // exports every 20 ms, each giving up after 50 ms: many failures in a short run
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_EXPORTER_OTLP_TIMEOUT: '50' }
    const server = rawServer(['--config', ws.config, '--otel'], ws.dir, { env })
    await server.initialize()
    for (let i = 1; i <= 8; i++) {
      server.send({ id: i, method: 'tools/call', params: { name: 'echo', arguments: { command: 'x' } } })
      await server.reply(i)
      // the next call once this call's span has failed to export
      await until(() => server.stderr().split('export failed').length > Math.min(i, 5) || server.stderr().includes('left out'), `export ${i} to fail`)
    }
    await stop(server, 'stdin')
    const failed = server.stderr().split('\n').filter((l) => l.includes('export failed'))
    expect(failed.length).toBeGreaterThanOrEqual(1)
    expect(failed.length).toBeLessThanOrEqual(5)
    for (const line of failed) expect(line).toMatch(/^dsh mcp: traces: export failed: .{1,200}$/)
    expect(server.stderr()).toMatch(/dsh mcp: traces: … \d+ more trace export messages left out/)
  })
})
