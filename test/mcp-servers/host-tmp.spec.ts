// A server under the host's /tmp: every Linux backend gives a confined process
// a /tmp of its own, so a server script in a real /tmp directory (outside the
// workspace) is refused at its start, naming the key, the path and the fix, and
// given up at once; the same script inside the workspace (bound again on the
// private /tmp) and the same script unconfined both serve.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { lacks } from '../backends.js'
import { kernelWith, nodeServer, outsideDir, serverPids, text, toolNames } from './helpers.js'

// the hand-written server needs no package, so a copy of it runs from anywhere
const RAW = fileURLToPath(new URL('../fixtures/mcp-servers/raw-server.mjs', import.meta.url))

/** A copy of the server in a fresh directory of the host's real /tmp. */
function underTmp(): string {
  const dir = outsideDir('/tmp', 'dsh-mcp-tmp-')
  const script = path.join(dir, 'server.mjs')
  fs.copyFileSync(RAW, script)
  return script
}

async function withServer(backend: string | undefined, mode: string, script: string) {
  const k = await kernelWith({ sandbox: { ...(backend ? { backends: [backend] } : {}), mode: 'read-only' }, servers: {} })
  const exited: Array<{ server: string; failures: number; reason: string }> = []
  k.ctx.on('mcp-servers/exited', (info) => void exited.push(info))
  await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: { t: nodeServer(script, { sandbox: { mode } }) }, restartBackoffMs: 50 } } } as any)
  return { k, exited }
}

for (const backend of ['bwrap', 'landlock-ns', 'landlock'] as const) {
  describe.skipIf(await lacks(backend, `the mcp-servers /tmp tests under ${backend}`))(`mcp-servers: a server under /tmp, ${backend}`, () => {
    it('refused at its start with the key, the path and the fix; given up at once, no process left', async () => {
      const script = underTmp()
      const { k, exited } = await withServer(backend, 'read-only', script)
      expect(exited).toHaveLength(1)
      expect(exited[0]).toMatchObject({ server: 't', failures: 1 })
      expect(exited[0]!.reason).toContain(`servers.t.args[0]: ${script} lies under /tmp`)
      expect(exited[0]!.reason).toContain(`confined by ${backend}`)
      expect(exited[0]!.reason).toMatch(/outside \/tmp.*sandbox\.mode: danger-full-access/)
      expect(toolNames(k)).toEqual([])
      expect(serverPids(k.dir)).toEqual([])
    })

    it('the same script inside the workspace (under /tmp too) serves confined', async () => {
      const k = await kernelWith({ sandbox: { backends: [backend], mode: 'read-only' }, servers: {} })
      // the test kernels' workspaces lie in the host's /tmp; without that this case says nothing
      expect(path.relative(os.tmpdir(), k.dir).startsWith('..')).toBe(false)
      const script = path.join(k.dir, 'server.mjs')
      fs.copyFileSync(RAW, script)
      await k.reload({ ...k.options, plugins: { 'mcp-servers': { servers: { t: nodeServer(script) } } } } as any)
      const r = await k.call('mcp__t__good', {})
      expect(r.isError, text(r)).toBe(false)
      expect(text(r)).toBe('ok')
      expect((k.session.events().find((e) => e.type === 'tool/result' && (e.data as any).name === 'mcp__t__good')?.data as any)?.sandbox?.backend).toBe(backend)
    })
  })
}

describe('mcp-servers: a server under /tmp, unconfined', () => {
  it('danger-full-access: the script in /tmp serves', async () => {
    const script = underTmp()
    const { k, exited } = await withServer(undefined, 'danger-full-access', script)
    expect(exited).toEqual([])
    const r = await k.call('mcp__t__good', {})
    expect(r.isError, text(r)).toBe(false)
    expect(text(r)).toBe('ok')
  })
})
