// Rules and hooks written for Claude Code's names of MCP tools apply to them
// inside dsh: a deny rule on the tool or the whole server, a PreToolUse hook
// matching mcp__<server>__.*, an approval asked and answered — and a denied
// call never reaches the server.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { answerApprovals, type TestKernel } from 'dsh/testing'
import { eventually, fixtureServer, kernelWith, text } from './helpers.js'

let k: TestKernel | undefined

const permissions = (rules: Record<string, string[]>) => ({ 'claude-code-permissions': { settingsFiles: [], permissions: rules } })
const writeServer = () => ({ fix: fixtureServer({ sandbox: { mode: 'workspace-write' } }) })

describe('mcp-servers: rules, hooks and approval', () => {
  it('a deny rule on mcp__<server>__<tool> denies the call before the server sees it', async () => {
    k = await kernelWith({ servers: writeServer(), plugins: permissions({ deny: ['mcp__fix__write_file'], allow: ['mcp__fix__echo'] }) })
    const target = path.join(k.dir, 'denied.txt')
    const r = await k.call('mcp__fix__write_file', { path: target, content: 'x' })
    expect(r.error?.code).toBe('DENIED')
    expect(r.error?.source).toMatchObject({ kind: 'rule', plugin: 'claude-code-permissions' })
    expect(fs.existsSync(target)).toBe(false)
    expect(text(await k.call('mcp__fix__echo', { text: 'ok' }))).toBe('ok')
  })

  it('a deny rule on mcp__<server> covers every tool of the server', async () => {
    k = await kernelWith({ servers: writeServer(), plugins: permissions({ deny: ['mcp__fix'] }) })
    for (const [tool, args] of [['echo', { text: 'x' }], ['write_file', { path: path.join(k.dir, 'x'), content: 'x' }]] as const) {
      const r = await k.call(`mcp__fix__${tool}`, args)
      expect(r.error?.code, tool).toBe('DENIED')
    }
    expect(fs.existsSync(path.join(k.dir, 'x'))).toBe(false)
  })

  it('a PreToolUse hook with matcher mcp__fix__.* blocks the call (exit 2), seeing the tool\'s name and input', async () => {
    const seen = path.join(await fs.promises.mkdtemp('/tmp/dsh-mcp-hook-'), 'input.json')
    const hooks = { PreToolUse: [{ matcher: 'mcp__fix__.*', hooks: [{ type: 'command', command: `cat > ${seen}; echo "no writes through fix" >&2; exit 2` }] }] }
    k = await kernelWith({ servers: writeServer(), plugins: { 'hooks-claude-code': { settingsFiles: [], hooks } } })
    const target = path.join(k.dir, 'hooked.txt')
    const r = await k.call('mcp__fix__write_file', { path: target, content: 'x' })
    expect(r.error?.code).toBe('DENIED')
    expect(r.error?.message).toContain('no writes through fix')
    expect(fs.existsSync(target)).toBe(false)
    expect(JSON.parse(fs.readFileSync(seen, 'utf8'))).toMatchObject({ tool_name: 'mcp__fix__write_file', tool_input: { path: target, content: 'x' } })
    fs.rmSync(path.dirname(seen), { recursive: true, force: true })
  })

  it('an ask rule asks for approval; denied, the server never runs the tool; approved, it does', async () => {
    k = await kernelWith({ servers: writeServer(), plugins: permissions({ ask: ['mcp__fix__write_file'] }) })
    const target = path.join(k.dir, 'asked.txt')
    const undo = answerApprovals(k, { kind: 'denied', reason: 'not now' })
    expect((await k.call('mcp__fix__write_file', { path: target, content: 'x' })).error?.code).toBe('DENIED')
    expect(fs.existsSync(target)).toBe(false)
    undo()
    answerApprovals(k, { kind: 'approved', grant: 'once' })
    const r = await k.call('mcp__fix__write_file', { path: target, content: 'x' })
    expect(r.isError, text(r)).toBe(false)
    expect(fs.readFileSync(target, 'utf8')).toBe('x')
    const asked = k.session.events().filter((e) => e.type === 'approval/asked')
    expect(asked.map((e) => (e.data as any).name ?? (e.data as any).tool)).toContain('mcp__fix__write_file')
  })

  it('timeout-policy gives an upstream tool a deadline: TIMEOUT, and the server is told to stop', async () => {
    k = await kernelWith({ servers: writeServer(), plugins: { 'timeout-policy': { tools: { mcp__fix__sleep: 300 } } } })
    const r = await k.call('mcp__fix__sleep', { ms: 20_000 })
    expect(r.error?.code).toBe('TIMEOUT')
    expect(await eventually(async () => (((await k!.call('mcp__fix__cancelled', {})).value as any)?.ids ?? []).length === 1)).toBe(true)
  })

  it('spill-policy spills a large upstream result to a file that read can open', async () => {
    k = await kernelWith({ servers: writeServer(), plugins: { 'spill-policy': { maxInlineBytes: 4096 } } })
    const r = await k.call('mcp__fix__huge', { mb: 1 })
    expect(r.isError, text(r)).toBe(false)
    expect(Buffer.byteLength(text(r))).toBeLessThanOrEqual(4096)
    expect(text(r)).toMatch(/spill/i)
  })
})
