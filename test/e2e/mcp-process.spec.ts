/**
 * `dsh mcp` as a process, driven with raw JSON-RPC lines: nothing but the
 * protocol on stdout, a clean shutdown on stdin end and on SIGTERM (calls in
 * flight cancelled and audited, the turn ended, the session closed), and
 * usage errors.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertBuilt, CLI, fixture, until, Workspace } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

let ws: Workspace | undefined
const children: ChildProcessWithoutNullStreams[] = []

beforeAll(assertBuilt)
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  ws?.cleanup()
  ws = undefined
})

/** The CLI with raw pipes: send JSON-RPC lines, read stdout and stderr. */
function raw(args: string[], cwd: string) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: dshEnv(), stdio: ['pipe', 'pipe', 'pipe'] })
  children.push(child)
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out.stdout += c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out.stderr += c))
  const messages = () => out.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    out,
    exited,
    messages,
    send: (message: object) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n'),
    reply: (id: number) => until(() => messages().find((m) => m.id === id), `the reply to request ${id}`),
  }
}

async function initialize(server: ReturnType<typeof raw>) {
  server.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
  await server.reply(1)
  server.send({ method: 'notifications/initialized' })
}

describe('dsh mcp: stdout is the protocol', () => {
  it('console.log and stdout writes of plugins go to stderr; every stdout line is JSON-RPC', async () => {
    ws = new Workspace({ plugins: { [fixture('console-noise.mjs')]: {} } })
    const server = raw(['mcp', '--config', ws.config], ws.dir)
    await initialize(server)
    server.send({ id: 2, method: 'tools/call', params: { name: 'noisy', arguments: {} } })
    expect((await server.reply(2)).result.content).toEqual([{ type: 'text', text: 'quiet result' }])
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
    for (const message of server.messages()) expect(message.jsonrpc).toBe('2.0')
    expect(server.out.stdout).not.toContain('noise')
    expect(server.out.stderr).toContain('noise: console.log from apply')
    expect(server.out.stderr).toContain('noise: process.stdout.write from apply')
    expect(server.out.stderr).toContain('noise: console.log from a tool body')
  })
})

describe('dsh mcp: shutdown', () => {
  it('stdin ending closes the session: mcp/closed, the turn ended, exit 0', async () => {
    ws = new Workspace({ plugins: { [fixture('echo-tool.mjs')]: {} } })
    const server = raw(['mcp', '--config', ws.config], ws.dir)
    await initialize(server)
    server.send({ id: 2, method: 'tools/call', params: { name: 'echo', arguments: { command: 'x' } } })
    await server.reply(2)
    server.child.stdin.end()
    expect(await server.exited).toBe(0)
    const types = ws.events().map((e) => e.type)
    expect(types.slice(-2)).toEqual(['mcp/closed', 'turn/end'])
    expect(ws.events().find((e) => e.type === 'mcp/closed')?.data).toEqual({ reason: 'stdin closed' })
  })

  it('SIGTERM cancels the call in flight (ABORTED, the body saw it), then closes and exits 0', async () => {
    ws = new Workspace({ plugins: { [fixture('slow-tool.mjs')]: {} } })
    const server = raw(['mcp', '--config', ws.config], ws.dir)
    await initialize(server)
    server.send({ id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } })
    await ws.waitForEvent((e) => e.type === 'slow/started', 'the slow body to start')
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    const events = ws.events()
    expect(events.find((e) => e.type === 'tool/result')?.data.error.code).toBe('ABORTED')
    expect(events.some((e) => e.type === 'slow/aborted')).toBe(true)
    expect(events.find((e) => e.type === 'mcp/closed')?.data).toEqual({ reason: 'SIGTERM' })
    expect(events.at(-1)?.type).toBe('turn/end')
  })
})

describe('dsh mcp: usage', () => {
  const empty = () => mkdtempSync(join(tmpdir(), 'dsh-mcp-usage-'))

  it('--help prints the options and exits 0', async () => {
    const dir = empty()
    const server = raw(['mcp', '--help'], dir)
    expect(await server.exited).toBe(0)
    expect(server.out.stdout).toMatch(/Usage: dsh mcp \[--config <dsh.yml>\] \[--watch\]/)
    rmSync(dir, { recursive: true, force: true })
  })

  it('an unknown flag exits 2 naming it', async () => {
    const dir = empty()
    const server = raw(['mcp', '--bogus'], dir)
    expect(await server.exited).toBe(2)
    expect(server.out.stderr).toMatch(/--bogus/)
    expect(server.out.stdout).toBe('')
    rmSync(dir, { recursive: true, force: true })
  })

  it('--watch without a config file exits 2', async () => {
    const dir = empty()
    const server = raw(['mcp', '--watch'], dir)
    expect(await server.exited).toBe(2)
    expect(server.out.stderr).toMatch(/--watch needs a config file/)
    rmSync(dir, { recursive: true, force: true })
  })

  it('a missing config file exits 2 naming it; an invalid one names the plugin and the key', async () => {
    const dir = empty()
    const missing = raw(['mcp', '--config', join(dir, 'nope.yml')], dir)
    expect(await missing.exited).toBe(2)
    expect(missing.out.stderr).toContain(join(dir, 'nope.yml'))
    ws = new Workspace({ plugins: { [fixture('deny-pattern.mjs')]: { pattern: 42 } } })
    const invalid = raw(['mcp', '--config', ws.config], ws.dir)
    expect(await invalid.exited).toBe(2)
    expect(invalid.out.stderr).toMatch(/deny-pattern\.mjs.*pattern/)
    expect(invalid.out.stdout).toBe('')
    rmSync(dir, { recursive: true, force: true })
  })
})
