// The dsh CLI (its bundle, core/dsh/bin/dsh.cjs) with mcp-servers in its
// dsh.yml: `dsh exec mcp__<server>__<tool>` calls the confined server and
// prints the audit; once the command exits no server process is left.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../e2e/cli.js'
import { eventually, FIXTURE, serverPids } from './helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe('mcp-servers through the dsh CLI', () => {
  it('dsh exec calls an upstream tool and leaves no server process behind', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-mcp-cli-')))
    dirs.push(dir)
    fs.writeFileSync(path.join(dir, 'dsh.yml'), `plugins:\n  mcp-servers:\n    servers:\n      fix:\n        command: ${process.execPath}\n        args: [${FIXTURE}]\n`)
    const run = await runCli(['exec', 'mcp__fix__echo', '{"text":"via the CLI"}'], dir)
    expect(run.stdout).toContain('via the CLI')
    expect(run.stdout).toMatch(/✓ result mcp__fix__echo/)
    expect(await eventually(() => serverPids(dir).length === 0)).toBe(true)
  })
})
