/**
 * The launcher's bash runs no rc file: with a socket as stdin at shell level
 * 0 or 1, bash takes itself for a remote shell and sources ~/.bashrc unless
 * told not to. A real hook, a real HOME with a .bashrc that leaves a mark.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createLauncher } from '@dsh/hooks-claude-code'

const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL }
let home: string | undefined
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) value === undefined ? delete process.env[key] : (process.env[key] = value)
  if (home) rmSync(home, { recursive: true, force: true })
  home = undefined
})

describe('hook launcher', () => {
  it('does not source ~/.bashrc (started as a top-level shell, as dsh mcp under a client is): the hook runs, the rc file never does', async () => {
    home = mkdtempSync(join(tmpdir(), 'dsh-hook-home-'))
    const mark = join(home, 'bashrc-ran')
    writeFileSync(join(home, '.bashrc'), `touch "${mark}"\n`)
    // the kernel's environment as an MCP client gives it: this HOME, no SHLVL
    process.env.HOME = home
    delete process.env.SHLVL
    const outcome = await createLauncher().run({ command: 'cat; echo " read"', input: '{"x":1}', cwd: home, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 16 })
    expect(outcome.failure).toBeUndefined()
    expect(outcome.stdout).toBe('{"x":1} read\n')
    expect(existsSync(mark)).toBe(false)
  })
})
