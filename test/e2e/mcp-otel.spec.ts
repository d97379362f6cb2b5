/**
 * `dsh mcp --otel` end to end: the official MCP SDK client spawns the real
 * CLI with the standard OTEL_* variables pointing at a receiver on the
 * loopback address; every call's span arrives there over OTLP/HTTP, flushed
 * at shutdown. A variable the CLI cannot honour stops it before it serves.
 */
import { spawnSync } from 'node:child_process'
import type { Readable } from 'node:stream'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { assertBuilt, CLI, errorCode, fixture, Output, until, Workspace } from './mcp-helpers.js'
import { startReceiver, type Receiver } from '../otel/otlp-receiver.js'
import { dshEnv } from '../cache-home.js'

beforeAll(assertBuilt)

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean()
})

const config = {
  plugins: {
    [fixture('echo-tool.mjs')]: { prefix: 'echo:' },
    [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: '^rm ' },
  },
}

async function serve(ws: Workspace, env: Record<string, string>, args: string[] = ['--otel']) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', ws.config, ...args],
    cwd: ws.dir,
    env: dshEnv(env, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ws.dir }),
    stderr: 'pipe',
  })
  const stderr = new Output(transport.stderr as Readable)
  const client = new Client({ name: 'dsh-otel-e2e', version: '1.0.0' }, { capabilities: {} })
  await client.connect(transport)
  return { client, stderr }
}

async function setup() {
  const receiver: Receiver = await startReceiver()
  cleanups.push(() => receiver.close())
  const ws = new Workspace(config)
  cleanups.push(() => ws.cleanup())
  return { receiver, ws }
}

describe('dsh mcp --otel', () => {
  it('exports a span per call to OTEL_EXPORTER_OTLP_ENDPOINT, named by OTEL_SERVICE_NAME, flushed at shutdown', async () => {
    const { receiver, ws } = await setup()
    const { client, stderr } = await serve(ws, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'agent-fleet-7',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      // a long delay: the spans must arrive through the flush at shutdown
      OTEL_BSP_SCHEDULE_DELAY: '60000',
    })
    await stderr.waitFor(/tracing to otlp as agent-fleet-7/)
    const ok = await client.callTool({ name: 'echo', arguments: { command: 'hi' } })
    expect(ok.isError).toBe(false)
    const denied = await client.callTool({ name: 'echo', arguments: { command: 'rm -rf /' } })
    expect(errorCode(denied)).toBe('DENIED')
    const missing = await client.callTool({ name: 'nope', arguments: {} })
    expect(errorCode(missing)).toBe('UNKNOWN_TOOL')
    expect(receiver.spans).toHaveLength(0)
    await client.close()

    const spans = await until(() => receiver.spans.length >= 3 && receiver.spans, 'three spans at the receiver')
    expect(spans).toHaveLength(3)
    const callIds = ws.events().filter((e) => e.type === 'tool/call').map((e) => e.data.callId)
    const [first, second, third] = callIds.map((id) => spans.find((s) => s.attributes['gen_ai.tool.call.id'] === id)!)
    const session = ws.events().find((e) => e.type === 'mcp/connected')
    expect(session).toBeDefined()
    for (const span of [first, second, third]) {
      expect(span.resource).toMatchObject({ 'service.name': 'agent-fleet-7', 'deployment.environment': 'test', 'telemetry.sdk.language': 'nodejs' })
      expect(span.scope).toBe('@dsh/otel')
      expect(span.kind).toBe(1)
      expect(span.attributes['dsh.session.id']).toMatch(/^mcp-/)
    }
    expect(first).toMatchObject({ name: 'execute_tool echo', attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo', 'dsh.decision': 'allow' }, status: {} })
    expect(first.status.code ?? 0).toBe(0)
    expect(second).toMatchObject({ name: 'execute_tool echo', attributes: { 'dsh.decision': 'deny', 'dsh.decision.by': 'guard', 'error.type': 'DENIED' }, status: { code: 2, message: 'DENIED' } })
    expect(third).toMatchObject({ name: 'execute_tool nope', attributes: { 'error.type': 'UNKNOWN_TOOL' } })
    // arguments are not recorded by default
    expect(JSON.stringify(spans)).not.toContain('rm -rf')
  })

  it('uses the config\'s own otel plugin (and its settings) instead of adding a second one', async () => {
    const { receiver, ws } = await setup()
    ws.write({ plugins: { ...config.plugins, otel: { recordArguments: true, tracerName: 'from-config' } } })
    const { client } = await serve(ws, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' })
    await client.callTool({ name: 'echo', arguments: { command: 'hello' } })
    await client.close()
    const spans = await until(() => receiver.spans.length >= 1 && receiver.spans, 'a span at the receiver')
    // flushed at shutdown: whatever arrived has arrived
    expect(spans).toHaveLength(1)
    expect(spans[0]).toMatchObject({ scope: 'from-config', resource: { 'service.name': 'dsh' }, attributes: { 'gen_ai.tool.call.arguments': '{"command":"hello"}' } })
  })

  it('sends nothing without --otel, even with OTEL_* set', async () => {
    const { receiver, ws } = await setup()
    const { client, stderr } = await serve(ws, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '10' }, [])
    await client.callTool({ name: 'echo', arguments: { command: 'hi' } })
    // the server has exited once close() resolves: a request of ours after that is answered after any it sent
    await client.close()
    expect((await fetch(`${receiver.url}/after-the-server`)).status).toBe(404)
    expect(receiver.spans).toHaveLength(0)
    expect(stderr.text).not.toMatch(/tracing to/)
  })

  it('refuses an OTEL_* value it cannot honour, naming the variable, before serving (exit 2)', () => {
    const ws = new Workspace(config)
    cleanups.push(() => ws.cleanup())
    for (const [variable, value, says] of [
      ['OTEL_TRACES_EXPORTER', 'zipkin', /OTEL_TRACES_EXPORTER="zipkin".*otlp/],
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', /OTEL_EXPORTER_OTLP_PROTOCOL="grpc".*HTTP/],
      ['OTEL_LOG_LEVEL', 'loud', /OTEL_LOG_LEVEL="loud"/],
    ] as const) {
      const run = spawnSync(process.execPath, [CLI, 'mcp', '--config', ws.config, '--otel'], { cwd: ws.dir, env: dshEnv({ [variable]: value }, { PATH: process.env.PATH }), input: '', encoding: 'utf8', timeout: 15_000 })
      expect(run.status).toBe(2)
      expect(run.stderr).toMatch(says)
      expect(run.stdout).toBe('')
    }
  })
})
