/**
 * `tools/idle` readies the shell grammar only where a tool the rules read as Bash is there, and
 * only while the host stays idle; a Bash call after it is decided as before. Its own file, so the
 * module state starts unloaded; the tests run in order (the grammar, once loaded, stays loaded).
 */
import { afterEach, describe, expect, it } from 'vitest'
import * as permissions from '@dsh/claude-code-permissions'
import { shellParserLoaded, shellParserRequested } from '@dsh/claude-code-permissions'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import { permissionsKernel, until, type PermissionsKernel } from './kernel.js'

let k: TestKernel | PermissionsKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

/** the listener has decided: its engine is loaded (the plugin applied) and it runs on the emit's microtasks */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('the shell grammar while idle', () => {
  it('is not loaded when no tool is read as Bash', async () => {
    const bare = await createTestKernel()
    k = bare
    bare.ctx.plugin({ name: 'reader', inject: ['tools'], apply: (ctx) => void ctx.tools.register(testTool('read', () => 'read')) })
    bare.ctx.plugin(permissions as any, { workspace: bare.dir, settingsFiles: [] })
    await bare.ctx.lifecycle.flush()
    bare.ctx.emit('tools/idle', () => true)
    await settle()
    expect(shellParserRequested()).toBe(false)
  })

  it('is not loaded when the host is no longer idle; is loaded while it is, and the Bash rules decide as before', async () => {
    const pk = await permissionsKernel()
    k = pk
    await pk.plug({ permissions: { allow: ['Bash(git status)'], deny: ['Bash(rm:*)'] } })
    pk.ctx.emit('tools/idle', () => false)
    await settle()
    expect(shellParserRequested()).toBe(false)
    pk.ctx.emit('tools/idle', () => true)
    await until(shellParserLoaded)
    const denied = await pk.call('bash', { command: 'git status && rm -rf x' })
    expect(denied.error?.code).toBe('DENIED')
    expect(denied.error?.message).toContain('Bash(rm:*)')
    expect((await pk.call('bash', { command: 'git status' })).isError).toBe(false)
    expect(pk.ran).toEqual(['bash'])
  })
})
