/**
 * `dsh mcp` driven by a client nobody here wrote: the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector-cli`, the CLI mode of the Inspector) runs
 * `tools/list` and one `tools/call` against the built server, offline.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, CLI } from './mcp-helpers.js'
import { dshEnv } from '../cache-home.js'

const run = promisify(execFile)
const INSPECTOR = join(import.meta.dirname, '../../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js')

let root: string
beforeAll(assertBuilt)
afterEach(() => rmSync(root, { recursive: true, force: true }))

/**
 * A project directory whose parent holds a package.json: the Inspector CLI (0.21) looks for
 * `../package.json` relative to the working directory before importing its own.
 */
function project(): string {
  root = mkdtempSync(join(tmpdir(), 'dsh-inspector-'))
  writeFileSync(join(root, 'package.json'), '{}\n')
  const dir = join(root, 'project')
  mkdirSync(dir)
  // `dsh mcp` reads ./dsh.yml: the Inspector's launcher would take a --config flag for its own
  writeFileSync(join(dir, 'dsh.yml'), 'dataDir: .dsh\nplugins:\n  workspace-tools: {}\n')
  writeFileSync(join(dir, 'notes.txt'), 'first line\nsecond line\n')
  return dir
}

async function inspector(cwd: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', process.execPath, CLI, 'mcp', ...args], { cwd, env: dshEnv(), timeout: 60_000 })
  return JSON.parse(stdout)
}

describe('dsh mcp under the MCP Inspector CLI', { timeout: 120_000 }, () => {
  it('tools/list shows the tools with titles and annotations', async () => {
    const listed = await inspector(project(), '--method', 'tools/list')
    const read = listed.tools.find((t: any) => t.name === 'read')
    expect(read).toMatchObject({ title: 'Read file', annotations: { readOnlyHint: true, openWorldHint: false }, inputSchema: { required: ['file_path'] } })
    expect(listed.tools.find((t: any) => t.name === 'bash')?.annotations).toMatchObject({ destructiveHint: true })
  })

  it('tools/call runs a call through the pipeline and returns content and structuredContent', async () => {
    const result = await inspector(project(), '--method', 'tools/call', '--tool-name', 'read', '--tool-arg', 'file_path=notes.txt')
    expect(result.isError).toBe(false)
    expect(result.content[0].text).toContain('second line')
    expect(result.structuredContent).toMatchObject({ content: 'first line\nsecond line', totalLines: 2 })
  })
})
