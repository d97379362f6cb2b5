/**
 * What a person sees when a plugin's code does not load (DESIGN §16.2): `dsh exec` and `dsh mcp`
 * as real child processes on a dsh.yml naming a plugin by path, whose code has a syntax error (in
 * the entry, or in a file it imports) or throws while it runs or while `apply` runs: the file, line and column, and the
 * line with a caret under the column, on stderr, exit 2.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from './cli.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-load-errors-'))
  writeFileSync(join(dir, 'dsh.yml'), 'plugins:\n  ./plugin/index.js: {}\n')
  mkdirSync(join(dir, 'plugin'))
  writeFileSync(join(dir, 'plugin', 'package.json'), '{ "type": "module" }\n')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const plugin = (file: string, text: string) => writeFileSync(join(dir, 'plugin', file), text)
const GOOD_HEAD = "export const name = 'broken'\n"

describe('plugin load errors name the file, line and column and show the line', () => {
  it('a syntax error in the entry, from dsh exec', { timeout: 20_000 }, async () => {
    plugin('index.js', `${GOOD_HEAD}export function apply(ctx) {\n  const x = ;\n}\n`)
    const run = await runCli(['exec', '--config', 'dsh.yml', 'read', '{"path":"dsh.yml"}'], dir)
    expect(run.code).toBe(2)
    const entry = join(dir, 'plugin', 'index.js')
    expect(run.stderr).toContain(`plugin ./plugin/index.js cannot be loaded: ${entry}:3:13: Unexpected token ';'\n    const x = ;\n              ^\n`)
    expect(run.stdout).toBe('')
  })

  it('a syntax error in a file the entry imports names that file, from dsh mcp', { timeout: 20_000 }, async () => {
    plugin('index.js', `${GOOD_HEAD}import { helper } from './helper.js'\nexport function apply(ctx) { helper() }\n`)
    plugin('helper.js', 'export function helper() {\n  return {\n    a: 1\n    b: 2\n  }\n}\n')
    const run = await runCli(['mcp', '--config', 'dsh.yml'], dir)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`${join(dir, 'plugin', 'helper.js')}:4:5: Unexpected identifier 'b'\n      b: 2\n      ^\n`)
  })

  it('an error thrown while the module runs names its line', { timeout: 20_000 }, async () => {
    plugin('index.js', `${GOOD_HEAD}const table = undefined\nexport const size = table.length\nexport function apply() {}\n`)
    const run = await runCli(['exec', '--config', 'dsh.yml', 'read', '{"path":"dsh.yml"}'], dir)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(new RegExp(`${join(dir, 'plugin', 'index.js').replace(/[.\\/]/g, '\\$&')}:3:\\d+: Cannot read properties of undefined \\(reading 'length'\\)\\n  export const size = table\\.length\\n +\\^\\n`))
  })

  it('an apply that throws names the line in the plugin\'s file it threw at', { timeout: 20_000 }, async () => {
    plugin('index.js', `${GOOD_HEAD}import { check } from './check.js'\nexport function apply(ctx, config) {\n  check(config)\n}\n`)
    plugin('check.js', "export function check(config) {\n  if (!config.token) throw new Error('no token configured')\n}\n")
    const run = await runCli(['exec', '--config', 'dsh.yml', 'read', '{"path":"dsh.yml"}'], dir)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`plugin ./plugin/index.js failed to start: ${join(dir, 'plugin', 'check.js')}:2:28: no token configured\n    if (!config.token) throw new Error('no token configured')\n    ${' '.repeat(25)}^\n`)
  })
})
