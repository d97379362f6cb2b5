// SandboxPolicy.env: variables added to a confined command's fixed
// environment, on each backend. Their values reach the launcher by its
// environment (spawnEnv), never its argv — which every process on the host can
// read in /proc/<pid>/cmdline — and the command sees them; bad names, and the
// proxy's own variables, are refused naming the field.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { sandboxEnv, SandboxService } from '@dsh/sandbox'
import { lacks } from '../backends.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const workspace = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-env-')))
  dirs.push(dir)
  return dir
}

const skip = Object.fromEntries(await Promise.all((['bwrap', 'landlock-ns', 'landlock'] as const).map(async (b) => [b, await lacks(b, `policy env under ${b}`)] as const)))

describe('sandbox policy env', () => {
  it('refuses names that are no variable names and the proxy\'s variables', async () => {
    const sandbox = new SandboxService(new Context(), { backends: [] })
    const ws = workspace()
    await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws, env: { 'A=B': 'x' } })).rejects.toThrow(/env\.A=B is not a variable name/)
    await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws, env: { HTTPS_PROXY: 'http://evil' } })).rejects.toThrow(/env\.HTTPS_PROXY is set by the sandbox itself/)
    await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: ws, env: { A: 5 as any } })).rejects.toThrow(/env\.A must be a string/)
  })

  for (const backend of ['bwrap', 'landlock-ns', 'landlock'] as const) {
    it.skipIf(skip[backend])(`${backend}: the command sees the variable; the argv never holds its value`, async () => {
      const sandbox = new SandboxService(new Context(), { backends: [backend] })
      const ws = workspace()
      const secret = `tok-${process.pid}-${Date.now()}`
      const confined = await sandbox.confine(['/usr/bin/env'], { mode: 'read-only', workspace: ws, env: { SERVER_TOKEN: secret } })
      try {
        expect(confined.argv.join('\0')).not.toContain(secret)
        expect(confined.spawnEnv).toEqual({ SERVER_TOKEN: secret })
        const [file, ...args] = confined.argv
        const out = execFileSync(file!, args, { cwd: ws, env: { ...sandboxEnv(ws), ...confined.spawnEnv }, encoding: 'utf8' })
        expect(out.split('\n')).toContain(`SERVER_TOKEN=${secret}`)
        expect(out.split('\n')).toContain(`HOME=${ws}`)
      } finally {
        confined.cleanup()
      }
    })
  }
})
