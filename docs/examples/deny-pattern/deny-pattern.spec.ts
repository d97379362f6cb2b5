// The tests of the deny-pattern example: the plugin plugged directly, then
// loaded from a dsh.yml and reloaded, always against the real `bash` tool of
// @dsh/workspace-tools in a temporary workspace.
// #region test-direct
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createTestKernel, loadPlugin, type TestKernel } from 'dsh/testing'
import * as denyPattern from './src/index.js'

let workspace: string
let k: TestKernel | undefined

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'deny-pattern-'))
})
afterEach(async () => {
  await k?.cleanup()
  k = undefined
  rmSync(workspace, { recursive: true, force: true })
})

it('denies a matching bash command and runs any other', async () => {
  k = await createTestKernel({ sandbox: { workspace }, plugins: { 'workspace-tools': {} } })
  await loadPlugin(k.ctx, denyPattern, { patterns: ['\\brm\\s+-rf\\b'] })

  const denied = await k.call('bash', { command: 'rm -rf build' })
  expect(denied.isError).toBe(true)
  expect(denied.error).toMatchObject({ code: 'DENIED', message: 'deny-pattern: the command matches /\\brm\\s+-rf\\b/' })

  const allowed = await k.call('bash', { command: 'echo hello' })
  expect(allowed.isError).toBe(false)
  expect(allowed.value).toMatchObject({ stdout: 'hello\n', exitCode: 0 })
})
// #endregion test-direct

it('is what denied: once disposed, the same command runs', async () => {
  k = await createTestKernel({ sandbox: { workspace }, plugins: { 'workspace-tools': {} } })
  const fork = await loadPlugin(k.ctx, denyPattern, { patterns: ['^echo denied$'] })
  expect((await k.call('bash', { command: 'echo denied' })).error?.code).toBe('DENIED')
  fork.dispose()
  expect((await k.call('bash', { command: 'echo denied' })).value).toMatchObject({ stdout: 'denied\n' })
})

it('checks only the configured tools, and refuses a call of one without a command', async () => {
  k = await createTestKernel({ sandbox: { workspace } })
  k.ctx.tools.register({ name: 'shell', description: 'a stand-in', parameters: { type: 'object' }, execute: () => 'ran' })
  await loadPlugin(k.ctx, denyPattern, { patterns: ['x'], tools: ['shell'] })
  expect((await k.call('shell', { command: 'x' })).error?.code).toBe('DENIED')
  expect((await k.call('shell', { script: 'x' })).error).toMatchObject({ code: 'DENIED', message: 'deny-pattern: shell has no command to check' })
  expect((await k.call('shell', { command: 'y' })).content).toEqual([{ type: 'text', text: 'ran' }])
})

// #region test-yml
function writeConfig(patterns: string[]): string {
  const file = join(workspace, 'dsh.yml')
  const plugin = join(import.meta.dirname, 'src/index.ts')
  writeFileSync(file, [
    'plugins:',
    '  workspace-tools: {}',
    `  ${plugin}:`,
    `    patterns: ${JSON.stringify(patterns)}`,
  ].join('\n'))
  return file
}

it('loads from dsh.yml, and a reload applies new patterns', async () => {
  const configFile = writeConfig(['\\brm\\s+-rf\\b'])
  k = await createTestKernel({ configFile, sandbox: { workspace } })
  expect((await k.call('bash', { command: 'rm -rf build' })).error?.code).toBe('DENIED')

  writeConfig(['^sudo '])
  expect(await k.reload()).toMatchObject({ changed: [expect.stringContaining('index.ts')] })
  expect((await k.call('bash', { command: 'sudo true' })).error?.code).toBe('DENIED')
  expect((await k.call('bash', { command: 'rm -rf build' })).isError).toBe(false)
})
// #endregion test-yml

it('refuses a bad config at load, naming the plugin and the key', async () => {
  const file = join(workspace, 'dsh.yml')
  const plugin = join(import.meta.dirname, 'src/index.ts')
  const load = (body: string) => {
    writeFileSync(file, `plugins:\n  ${plugin}:\n${body}`)
    return createTestKernel({ configFile: file, sandbox: { workspace } })
  }
  await expect(load('    {}\n')).rejects.toThrow(/index\.ts.*patterns/)
  await expect(load('    patterns: ["x"]\n    pattern: "y"\n')).rejects.toThrow(/index\.ts: unknown key pattern/)
  await expect(load('    patterns: ["("]\n')).rejects.toMatchObject({ code: 'PLUGIN_FAILED', message: expect.stringContaining('Invalid regular expression') })
})
