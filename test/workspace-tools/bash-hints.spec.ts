// The line bash appends when its command ran into the sandbox: a write that
// hit "Read-only file system", a host the proxy refused, the network off —
// each says why and which setting allows it, after the command's own output,
// which stays as the command printed it (value.stdout/stderr untouched).
// Nothing is added when nothing of the sandbox's refused the command.
import fs from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { lacks, sandboxBackend, skipWhen } from '../backends.js'
import { startWeb, type Web } from '../sandbox/network-helpers.js'
import { setup, teardown, text } from './helpers.js'

afterEach(teardown)

const backend = await sandboxBackend()
const skip = skipWhen(!backend, 'bash\'s sandbox hints', 'no sandbox backend can confine bash here')
const noCurl = skip || skipWhen(!fs.existsSync('/usr/bin/curl'), 'bash\'s network hints', '/usr/bin/curl is not installed')

const BACKENDS: LocalBackend[] = ['bwrap', 'landlock-ns', 'landlock']
const missing = Object.fromEntries(await Promise.all(BACKENDS.map(async (name) => [name, await lacks(name, `bash's hint line on ${name}`)] as const)))

const lastLine = (s: string) => s.split('\n').at(-1)!

describe.skipIf(skip)('bash\'s hint line', () => {
  for (const name of BACKENDS) {
    it.skipIf(missing[name])(`read-only (${name}): touch /x is refused, and the hint names the mode and how to allow writes; the output itself is the command's`, async () => {
      const { k, ws } = await setup({ sandbox: { backends: [name] } })
      const r = await k.call('bash', { command: 'touch /x-dsh-hint; touch in-workspace' })
      expect(r.isError).toBe(false)
      const value = r.value as { stdout: string; stderr: string; exitCode: number }
      expect(value.stderr).toMatch(name === 'landlock' ? /Permission denied/ : /Read-only file system/)
      expect(value.stderr).not.toMatch(/\[sandbox/)
      expect(text(r)).toContain(`${value.stderr.trimEnd()}\n[exit code 1]\n[sandbox: `)
      expect(lastLine(text(r))).toMatch(/^\[sandbox: the sandbox mode is read-only, so the command's writes fail with "Read-only file system"( or, under Landlock, "Permission denied")?\. To allow them: run the session in workspace-write \(sandbox\.mode in dsh\.yml, or a sandbox\/mode event\)/)
      // the clients hand the model the value, not the text: the hint is there too
      expect((r.value as { notes?: string[] }).notes).toEqual([lastLine(text(r))])
      expect(fs.existsSync('/x-dsh-hint')).toBe(false)
      expect(fs.existsSync(`${ws}/in-workspace`)).toBe(false)
    })
  }

  it('workspace-write: a write to a protected path says what stays read-only', async () => {
    const { k, ws } = await setup({ mode: 'workspace-write' })
    fs.mkdirSync(`${ws}/.git`)
    const r = await k.call('bash', { command: 'touch .git/planted' })
    expect(lastLine(text(r))).toMatch(/^\[sandbox: under workspace-write only the workspace is writable \(protected paths such as \.git/)
    expect(fs.existsSync(`${ws}/.git/planted`)).toBe(false)
  })

  it('no hint when nothing was refused, nor under danger-full-access', async () => {
    const { k } = await setup()
    const fine = await k.call('bash', { command: 'echo fine' })
    expect(text(fine)).toBe('fine\n[exit code 0]')
    expect(fine.value).toEqual({ stdout: 'fine\n', stderr: '', exitCode: 0 })
    await k.cleanup()
    const free = await setup({ mode: 'danger-full-access' })
    expect(text(await free.k.call('bash', { command: 'echo "Read-only file system" >&2' }))).toBe('[stderr]\nRead-only file system\n[exit code 0]')
  })
})

describe.skipIf(noCurl)('bash\'s network hint line', () => {
  let web: Web
  beforeAll(async () => {
    web = await startWeb()
  })
  afterAll(() => web.close())

  it('a host the proxy refused: named with the reason and the sandbox.network.allow to add it to', async () => {
    const { k } = await setup({ network: { allow: ['127.0.0.1'] } })
    const r = await k.call('bash', { command: `curl -fsS --max-time 8 http://unlisted.invalid:${web.port}/` }, { callId: 'h1' })
    expect((r.value as { stderr: string }).stderr).not.toMatch(/\[sandbox/)
    expect(lastLine(text(r))).toBe(`[sandbox: the network proxy refused unlisted.invalid:${web.port} (unlisted.invalid is not in the network allow list). To allow it: add "unlisted.invalid" to sandbox.network.allow in dsh.yml.]`)
    // an allowed host's call has no hint
    expect(text(await k.call('bash', { command: `curl -fsS --max-time 8 http://127.0.0.1:${web.port}/` }))).toBe(`hello 127.0.0.1:${web.port}\n[exit code 0]`)
  })

  it('the network off: the host curl could not resolve, and what to set sandbox.network to', async () => {
    const { k } = await setup()
    const before = web.hits.length
    const r = await k.call('bash', { command: `curl -fsS --max-time 8 http://example.invalid:${web.port}/` })
    expect(lastLine(text(r))).toBe('[sandbox: the sandbox\'s network is off for commands (sandbox.network "off"), so connections fail. To allow it: set sandbox.network in dsh.yml to { allow: ["example.invalid"] } (only the listed hosts, each connection recorded), or to "on" (every host, unrecorded).]')
    expect(web.hits.length).toBe(before)
  })
})
