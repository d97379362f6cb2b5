/**
 * A dsh.yml whose `sandbox` section the sandbox's own checks refuse (a `readDeny` entry that is a
 * pattern, a host pattern that is not one), as `dsh exec` and `dsh mcp` (real child processes)
 * report it: once, on stderr, naming the key and the value with the file, line and column and the
 * line, exit 2 — nothing on stdout (where MCP speaks), no plugin "waiting for service(s) sandbox",
 * no internal TypeError; and a reload to such a config keeps the previous set.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli.js'
import { mcpServers, text } from './mcp-helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-service-config-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const CASES = [
  {
    what: 'a readDeny entry that is a pattern',
    yml: 'sandbox:\n  readDeny: [~/.ssh, "keys/*.pem"]\nplugins:\n  workspace-tools: {}\n',
    expected: ':2:22: sandbox config: sandbox.readDeny[1] is a pattern;',
    line: '    readDeny: [~/.ssh, "keys/*.pem"]\n                       ^\n',
    value: '(got "keys/*.pem")',
  },
  {
    what: 'a network pattern that is not a host pattern',
    yml: 'sandbox:\n  network:\n    allow: [example.com, "*.*"]\nplugins:\n  workspace-tools: {}\n',
    expected: ':3:26: sandbox config: sandbox.network.allow[1] "*.*" is not a host pattern',
    line: '      allow: [example.com, "*.*"]\n                           ^\n',
    value: '"*.*"',
  },
]

describe('sandbox config errors: once, on stderr, the key and the value, exit 2', () => {
  for (const c of CASES) {
    for (const command of [['exec', '--config', 'dsh.yml', 'read', '{"path":"dsh.yml"}'], ['mcp', '--config', 'dsh.yml']]) {
      it(`${c.what}, dsh ${command[0]}`, { timeout: 20_000 }, async () => {
        writeFileSync(join(dir, 'dsh.yml'), c.yml)
        const run = await runCli(command, dir)
        expect(run.code).toBe(2)
        expect(run.stdout).toBe('')
        const file = join(dir, 'dsh.yml')
        expect(run.stderr).toContain(`${file}${c.expected}`)
        expect(run.stderr).toContain(c.value)
        expect(run.stderr).toContain(c.line)
        expect(run.stderr.split('sandbox config:').length - 1).toBe(1)
        expect(run.stderr).not.toMatch(/waiting for|TypeError|Symbol\(|\n\s+at /)
      })
    }
  }
})

describe('a reload to a bad sandbox config', () => {
  const open = mcpServers()
  it('fails, naming the key and the value, and the previous set keeps answering', { timeout: 30_000 }, async () => {
    const echo = join(import.meta.dirname, '../fixtures/plugins/echo-tool.mjs')
    const { ws, conn, client } = await open({ plugins: { [echo]: { prefix: 'v1:' } } }, { watch: true })
    ws.write({ sandbox: { network: { allow: ['*.*'] } }, plugins: { [echo]: { prefix: 'v2:' } } })
    await conn.stderr.waitFor(/reload of .* failed/, 'the reload failure')
    expect(conn.stderr.text).toMatch(/reload of .* failed; the previous plugin set stays: .*dsh\.yml:\d+:\d+: sandbox config: sandbox\.network\.allow\[0\] "\*\.\*" is not a host pattern/)
    expect(conn.stderr.text).not.toMatch(/waiting for|TypeError|Symbol\(/)
    expect(text(await client.callTool({ name: 'echo', arguments: { command: 'x' } }))).toBe('v1:x')
  })
})
