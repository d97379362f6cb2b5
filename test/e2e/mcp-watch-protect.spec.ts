/**
 * `dsh mcp --watch` and what a call can do to the config it runs under
 * (issue 29, item 1): under workspace-write, on every backend here, a call
 * cannot change dsh.yml at all, and nothing it did is reloaded; a change a call
 * makes anyway (in danger-full-access, where nothing confines it) is not
 * applied, and the refusal reaches the session log, stderr and the client;
 * a change a person makes with no call in flight is applied as before.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { LINUX_BACKENDS as BACKENDS, unavailableLinuxBackends } from '../backends.js'
import { fixture, mcpServers, text, until } from './mcp-helpers.js'

const open = mcpServers()
const missing = await unavailableLinuxBackends()

function plugins() {
  return { 'workspace-tools': {}, [fixture('echo-tool.mjs')]: { prefix: 'v1:' } }
}

async function start(sandbox: object) {
  const started = await open({ sandbox, plugins: plugins() }, { watch: true })
  const messages: Array<{ level: string; data: any }> = []
  let listChanged = 0
  started.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    messages.push(n.params as { level: string; data: any })
  })
  started.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++
  })
  return { ...started, messages, listChanged: () => listChanged }
}

const bash = (command: string) => ({ name: 'bash', arguments: { command } })

describe('dsh mcp --watch: a config change made inside a call', () => {
  for (const backend of BACKENDS) {
    it.skipIf(missing[backend] !== undefined)(`under workspace-write on ${backend}, sed -i and echo > of dsh.yml are refused, the file is unchanged, and the next call is still confined`, async () => {
      const { ws, conn, client } = await start({ mode: 'workspace-write', backends: [backend] })
      const before = readFileSync(ws.config, 'utf8')
      const sed = await client.callTool(bash(`sed -i 's/workspace-write/danger-full-access/' ${ws.config}; echo "sed=$?"`))
      expect(readFileSync(ws.config, 'utf8')).toBe(before)
      const echo = await client.callTool(bash(`printf 'sandbox:\\n  mode: danger-full-access\\n' > dsh.yml; echo "echo=$?"; cat dsh.yml`))
      expect(readFileSync(ws.config, 'utf8')).toBe(before)
      // on bwrap and landlock-ns the writes fail; plain Landlock lets them land and puts the file back when the call ends
      if (backend !== 'landlock') {
        expect(text(sed)).toMatch(/sed=[1-9]/)
        expect(text(echo)).toMatch(/echo=[1-9]/)
      }
      // a person's edit after the calls: reloads run one after another, so once this one is reported
      // every reload the calls' writes caused has run
      ws.write({ sandbox: { mode: 'workspace-write', backends: [backend] }, plugins: { ...plugins(), [fixture('echo-tool.mjs')]: { prefix: 'v2:' } } })
      await conn.stderr.waitFor(/reloaded .*changed 1/, 'the reload of the person\'s edit')
      expect(text(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v2:x')
      // a probe call after it: still confined, not backend none
      // /var/tmp: outside the workspace and, unlike /tmp, not private to the sandbox
      const outside = `/var/tmp/dsh-protect-escape-${process.pid}-${backend}`
      const after = await client.callTool(bash(`echo escaped > ${outside}; echo "rc=$?"`))
      expect(text(after)).toMatch(/rc=[1-9]/)
      expect(existsSync(outside)).toBe(false)
      expect(ws.events().filter((e) => e.type === 'tool/result' && e.data.name === 'bash').every((e) => e.data.sandbox?.backend === backend)).toBe(true)
      // the person's edit is the one reload that changed anything
      expect(ws.events().filter((e) => e.type === 'mcp/reloaded').map((e) => e.data)).toEqual([{ added: [], removed: [], changed: [fixture('echo-tool.mjs')] }])
      expect(conn.stderr.text.match(/reloaded/g)).toHaveLength(1)
    })
  }

  it('a change made by an unconfined call (danger-full-access) is not applied: mcp/reload-refused in the log and on stderr, an error message to the client; a person\'s later save is applied', async () => {
    const { ws, conn, client, messages, listChanged } = await start({ mode: 'danger-full-access' })
    const config = ws.config
    const planted = stringify({ dataDir: '.dsh', sandbox: { mode: 'danger-full-access' }, plugins: { ...plugins(), [fixture('echo-tool.mjs')]: { prefix: 'evil:' } } })
    expect(planted).not.toBe(readFileSync(config, 'utf8'))
    writeFileSync(`${ws.dir}/planted.yml`, planted)
    await client.setLoggingLevel('info')
    const call = await client.callTool(bash(`cp planted.yml dsh.yml && echo copied`))
    expect(text(call)).toMatch(/copied/)
    expect(readFileSync(config, 'utf8')).toBe(planted)
    const refused = await ws.waitForEvent((e) => e.type === 'mcp/reload-refused', 'the refused reload').catch((error) => {
      throw new Error(`${error.message}; stderr: ${conn.stderr.text}`)
    })
    expect(refused.data.files).toEqual([config])
    expect(refused.data.calls.join(' ')).toMatch(/\(bash\)/)
    expect(refused.data.reason).toMatch(/changed while a call was running/)
    await conn.stderr.waitFor(/reload of .* refused: .*changed while a call was running/, 'the refusal on stderr')
    await until(() => messages.find((m) => m.level === 'error' && m.data?.type === 'mcp/reload-refused'), 'the refusal sent to the client')
    // the old set still runs
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v1:x')
    expect(ws.events().some((e) => e.type === 'mcp/reloaded')).toBe(false)

    // a person saves the file, no call in flight: applied as before
    ws.write({ sandbox: { mode: 'danger-full-access' }, plugins: { ...plugins(), [fixture('echo-tool.mjs')]: { prefix: 'v2:' }, [fixture('slow-tool.mjs')]: {} } })
    await until(() => listChanged() === 1, 'tools/list_changed after the person\'s edit')
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v2:x')
    expect(ws.events().filter((e) => e.type === 'mcp/reload-refused')).toHaveLength(1)
  })

  it('a change a person makes while no call runs is applied, and one that a later call leaves unchanged stays applied', async () => {
    const { ws, client, listChanged } = await start({ mode: 'workspace-write' })
    ws.write({ sandbox: { mode: 'workspace-write' }, plugins: { ...plugins(), [fixture('slow-tool.mjs')]: {} } })
    await until(() => listChanged() === 1, 'tools/list_changed')
    expect((await client.callTool({ name: 'slow', arguments: { ms: 1 } })).isError).toBe(false)
    expect(text(await client.callTool(bash('cat dsh.yml')))).toMatch(/slow-tool/)
    expect(ws.events().some((e) => e.type === 'mcp/reload-refused')).toBe(false)
  })
})
