/**
 * `dsh mcp --watch`: editing dsh.yml reloads the plugin set and sends
 * `notifications/tools/list_changed` when (and only when) the wire tool set
 * changed; an invalid edit keeps the old set working; `tools/change` for any
 * other reason is announced too; a change of a plugin's code reloads it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js'
import { errorCode, fixture, mcpServers, text, until } from './mcp-helpers.js'

const open = mcpServers()

const base = {
  plugins: {
    [fixture('echo-tool.mjs')]: { prefix: 'v1:' },
    [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: '^rm ' },
  },
}

/** The inodes process `pid` watches through inotify (`/proc/<pid>/fdinfo`: `inotify wd:… ino:<hex> …`). */
function watchedInodes(pid: number): number[] {
  const inodes: number[] = []
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    let info: string
    try {
      info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8')
    } catch {
      continue
    }
    for (const match of info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) inodes.push(Number.parseInt(match[1], 16))
  }
  return inodes
}

async function start(config: object, watch = true) {
  const { ws, conn, client } = await open(config, { watch })
  let count = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    count++
  })
  const names = async () => (await client.listTools()).tools.map((t) => t.name).sort()
  return { ws, conn, client, notified: () => count, names }
}

describe('dsh mcp --watch', () => {
  it('adding a plugin to dsh.yml reloads and notifies; the new tool is listed and callable', async () => {
    const { ws, client, notified, names } = await start(base)
    expect(await names()).toEqual(['echo'])
    ws.write({ plugins: { ...base.plugins, [fixture('echo-tool.mjs')]: { prefix: 'v1:' }, [fixture('slow-tool.mjs')]: {} } })
    await until(() => notified() === 1, 'tools/list_changed')
    expect(await names()).toEqual(['echo', 'slow'])
    expect((await client.callTool({ name: 'slow', arguments: { ms: 1 } })).isError).toBe(false)
    const reloaded = ws.events().find((e) => e.type === 'mcp/reloaded')
    expect(reloaded?.data).toEqual({ added: [fixture('slow-tool.mjs')], removed: [], changed: [] })
    // removing it again
    ws.write(base)
    await until(() => notified() === 2, 'the second tools/list_changed')
    expect(await names()).toEqual(['echo'])
  })

  it('a reload that changes a plugin but not the wire tool set sends nothing', async () => {
    const { ws, conn, client, notified } = await start(base)
    ws.write({ plugins: { ...base.plugins, [fixture('echo-tool.mjs')]: { prefix: 'v2:' } } })
    await conn.stderr.waitFor(/reloaded .*changed 1/, 'the reload')
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v2:x')
    // a later change that does alter the set is the first notification: the one before sent none
    ws.write({ plugins: { ...base.plugins, [fixture('echo-tool.mjs')]: { prefix: 'v2:', name: 'echo2' } } })
    await until(() => notified() >= 1, 'tools/list_changed')
    expect(notified()).toBe(1)
  })

  it('an invalid edit keeps the old set working, logs to stderr and the session, and notifies nothing', async () => {
    const { ws, conn, client, notified, names } = await start(base)
    ws.write({ plugins: { ...base.plugins, [fixture('deny-pattern.mjs')]: { tool: 'echo', pattern: 42 } } })
    await conn.stderr.waitFor(/reload of .* failed; the previous plugin set stays: .*deny-pattern\.mjs.*pattern/, 'the reload failure')
    expect(errorCode(await client.callTool({ name: 'echo', arguments: { command: 'rm -rf /' } }))).toBe('DENIED')
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'hi' } }))).toBe('v1:hi')
    expect(await names()).toEqual(['echo'])
    expect(ws.events().find((e) => e.type === 'mcp/reload-failed')?.data.error).toMatch(/deny-pattern\.mjs/)
    // unparsable YAML too
    ws.write('plugins: [unclosed\n')
    await conn.stderr.waitFor(/reload of .* failed(.|\n)*reload of .* failed/, 'the second reload failure')
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'hi' } }))).toBe('v1:hi')
    // the first notification is for the next valid change that alters the set
    ws.write({ plugins: { ...base.plugins, [fixture('slow-tool.mjs')]: {} } })
    await until(() => notified() >= 1, 'tools/list_changed')
    expect(notified()).toBe(1)
    expect(await names()).toEqual(['echo', 'slow'])
  })

  it('switching tools.mode to code announces the collapsed set', async () => {
    const { ws, notified, names, client } = await start(base)
    ws.write({ tools: { mode: 'code' }, ...base })
    await until(() => notified() === 1, 'tools/list_changed')
    expect((await names()).filter((n) => n !== 'run_code')).toEqual([])
    expect(errorCode(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('UNKNOWN_TOOL')
  })

  it('without --watch, the config\'s directory is not watched and editing the file changes nothing; with it, it is', async () => {
    const unwatched = await start(base, false)
    // what would reload is a watch on the directory: the server's inotify watches are all there is to wait for
    expect(watchedInodes(unwatched.conn.transport.pid!)).not.toContain(statSync(unwatched.ws.dir).ino)
    unwatched.ws.write({ plugins: { ...base.plugins, [fixture('echo-tool.mjs')]: { prefix: 'v2:' } } })
    expect(text(await unwatched.client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v1:x')
    expect(unwatched.conn.stderr.text).not.toMatch(/reload/)
    const watched = await start(base)
    expect(watchedInodes(watched.conn.transport.pid!)).toContain(statSync(watched.ws.dir).ino)
  })

  it('a tool set change without a reload (a tool registered at run time) is announced too', async () => {
    const { client, notified, names } = await start({ plugins: { [fixture('late-tool.mjs')]: {} } }, false)
    expect(await names()).toEqual(['add_late'])
    await client.callTool({ name: 'add_late', arguments: {} })
    await until(() => notified() === 1, 'tools/list_changed')
    expect(await names()).toEqual(['add_late', 'late'])
  })

  it('a change of a plugin\'s code — a module its entry imports by path — reloads it: the new code answers, and the session logs the change', async () => {
    const code = mkdtempSync(join(tmpdir(), 'dsh-watch-code-'))
    try {
      const entry = join(code, 'index.mjs')
      writeFileSync(join(code, 'helper.mjs'), 'export const answer = "first"\n')
      writeFileSync(entry, `import { answer } from './helper.mjs'
export const name = 'changing'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'probe', description: 'which code runs', parameters: { type: 'object' }, execute: () => answer })
}
`)
      const { ws, conn, client } = await start({ plugins: { [entry]: {} } })
      expect(text(await client.callTool({ name: 'probe', arguments: {} }))).toBe('first')
      writeFileSync(join(code, 'helper.mjs'), 'export const answer = "second"\n')
      await conn.stderr.waitFor(/reloaded .*changed 1/, 'the reload of the changed code')
      expect(text(await client.callTool({ name: 'probe', arguments: {} }))).toBe('second')
      expect(ws.events().find((e) => e.type === 'mcp/reloaded')?.data).toEqual({ added: [], removed: [], changed: [entry] })
    } finally {
      rmSync(code, { recursive: true, force: true })
    }
  })

  it('a syntax error written into a plugin\'s code keeps the old code and is told at MCP level error, with the file, line and column and the line', async () => {
    const code = mkdtempSync(join(tmpdir(), 'dsh-watch-broken-'))
    try {
      const entry = join(code, 'index.mjs')
      const helper = join(code, 'helper.mjs')
      writeFileSync(helper, 'export const answer = "first"\n')
      writeFileSync(entry, `import { answer } from './helper.mjs'
export const name = 'breaking'
export const inject = ['tools']
export function apply(ctx) {
  ctx.tools.register({ name: 'probe', description: 'which code runs', parameters: { type: 'object' }, execute: () => answer })
}
`)
      const { conn, client } = await start({ plugins: { [entry]: {} } })
      const logs: LoggingMessageNotification['params'][] = []
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params)
      })
      await client.setLoggingLevel('error')
      writeFileSync(helper, 'export const answer = ;\n')
      const where = `${helper}:1:23: Unexpected token ';'\n  export const answer = ;\n  ${' '.repeat(22)}^`
      await conn.stderr.waitFor(/reload of .* failed/, 'the reload failure')
      expect(conn.stderr.text).toContain(where)
      await until(() => logs.some((l) => (l.data as { type?: string }).type === 'mcp/reload-failed'), 'the reload failure at level error')
      const failed = logs.find((l) => (l.data as { type?: string }).type === 'mcp/reload-failed')!
      expect(failed.level).toBe('error')
      expect((failed.data as { data: { error: string } }).data.error).toContain(where)
      expect(text(await client.callTool({ name: 'probe', arguments: {} }))).toBe('first')
    } finally {
      rmSync(code, { recursive: true, force: true })
    }
  })
})
