/**
 * The shell grammar (web-tree-sitter's WebAssembly, ~32 MB of reserved memory)
 * loads at the first Bash decision only: a kernel whose calls are other tools
 * never holds it. Its own file, so the module state starts unloaded. And the
 * decision is in the log file before the tool's body runs.
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { shellParserLoaded } from '@dsh/claude-code-permissions'
import { testTool } from 'dsh/testing'
import { permissionsKernel, type PermissionsKernel } from './kernel.js'

let k: PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe('the shell grammar', () => {
  it('is not loaded by decisions about other tools, nor by permissions/check of one; the first Bash decision loads it and reads the command', async () => {
    k = await permissionsKernel()
    await k.plug({ permissions: { allow: ['mcp__dsh__read', 'Bash(git status)'], deny: ['Bash(rm:*)', 'mcp__dsh__write'] } })
    expect((await k.call('read', { file_path: 'a.txt' })).isError).toBe(false)
    expect((await k.call('write', { file_path: 'x', content: '' })).error?.code).toBe('DENIED')
    expect(await k.ctx.serial('permissions/check', 'read', { file_path: 'a.txt' })).toMatchObject({ decision: 'allow' })
    expect(shellParserLoaded()).toBe(false)
    expect(k.ran).toEqual(['read'])

    // a compound command is read whole by the grammar: the rm inside it is denied
    const denied = await k.call('bash', { command: 'git status && rm -rf x' })
    expect(denied.error?.code).toBe('DENIED')
    expect(denied.error?.message).toContain('Bash(rm:*)')
    expect(shellParserLoaded()).toBe(true)
    expect((await k.call('bash', { command: 'git status' })).isError).toBe(false)
    expect(k.ran).toEqual(['read', 'bash'])
  })
})

describe('permission/decided', () => {
  it('is in the log file when the tool body runs', async () => {
    k = await permissionsKernel()
    const seen: string[] = []
    k.ctx.plugin({
      name: 'log-reader',
      inject: ['tools'],
      apply(ctx) {
        ctx.tools.register(testTool('looker', () => {
          seen.push(readFileSync(k!.session.path, 'utf8'))
          return 'looked'
        }, { annotations: { readOnlyHint: true } }))
      },
    })
    await k.plug({})
    expect((await k.call('looker', {})).isError).toBe(false)
    expect(seen).toHaveLength(1)
    const lines = seen[0].trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
    expect(lines.filter((line) => line.type === 'permission/decided').map((line) => line.data)).toEqual([
      { callId: expect.any(String), name: 'looker', decision: 'allow', mode: 'default' },
    ])
    expect(k.events('permission/decided')).toHaveLength(1)
  })
})
