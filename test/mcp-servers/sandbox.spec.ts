// A stdio server is held to the sandbox as bash is, on each backend: it cannot
// write outside its policy or open a socket with the network off, and what it
// tried is not on disk / never reached the listener.
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { lacks } from '../backends.js'
import { eventually, fixtureServer, kernelWith, outsideDir, serverPids, text } from './helpers.js'

const outside = () => outsideDir(fs.existsSync('/var/tmp') ? '/var/tmp' : os.tmpdir(), 'dsh-mcp-out-')

/** A TCP listener on the host that counts who reached it. */
async function listener(): Promise<{ port: number; reached: () => number; close: () => void }> {
  let count = 0
  const server = net.createServer((socket) => {
    count++
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as net.AddressInfo).port, reached: () => count, close: () => server.close() }
}

for (const backend of ['bwrap', 'landlock-ns', 'landlock'] as const) {
  describe.skipIf(await lacks(backend, `the mcp-servers ${backend} tests`))(`mcp-servers under ${backend}`, () => {
    const start = (mode: string, extra: Record<string, unknown> = {}) => kernelWith({ sandbox: { backends: [backend], mode }, servers: { fix: fixtureServer(extra) } })

    it('read-only: a server cannot write in the workspace or outside it', async () => {
      const k = await start('read-only')
      const out = outside()
      for (const target of [path.join(k.dir, 'inside.txt'), path.join(out, 'outside.txt')]) {
        const r = await k.call('mcp__fix__write_file', { path: target, content: 'x' })
        expect(r.isError, text(r)).toBe(true)
        expect(r.error?.message).toMatch(/EROFS|EACCES|EPERM|ENOENT/)
        expect(fs.existsSync(target)).toBe(false)
      }
      const result = k.session.events().filter((e) => e.type === 'tool/result').at(-1)!.data as any
      expect(result.sandbox.backend).toBe(backend)
    })

    it('workspace-write (the server\'s own sandbox mode): it writes the workspace, never outside it', async () => {
      const k = await kernelWith({ sandbox: { backends: [backend] }, servers: { fix: fixtureServer({ sandbox: { mode: 'workspace-write' } }) } })
      const out = outside()
      const inside = await k.call('mcp__fix__write_file', { path: path.join(k.dir, 'inside.txt'), content: 'x' })
      expect(inside.isError, text(inside)).toBe(false)
      expect(fs.readFileSync(path.join(k.dir, 'inside.txt'), 'utf8')).toBe('x')
      const escaped = await k.call('mcp__fix__write_file', { path: path.join(out, 'outside.txt'), content: 'x' })
      expect(escaped.isError).toBe(true)
      expect(fs.existsSync(path.join(out, 'outside.txt'))).toBe(false)
    })

    it('workspace-write: a protected file in the workspace keeps its content, during the server\'s life and after it', async () => {
      const ws = outside()
      const settings = path.join(ws, '.mcp.json')
      fs.writeFileSync(settings, '{"original":true}')
      const k = await kernelWith({ sandbox: { backends: [backend], workspace: ws }, servers: { fix: fixtureServer({ sandbox: { mode: 'workspace-write' } }) } })
      const r = await k.call('mcp__fix__write_file', { path: settings, content: '{"planted":true}' })
      // bwrap binds it read-only; Landlock cannot, and puts the copy back when the server ends
      if (backend === 'bwrap') expect(r.isError, text(r)).toBe(true)
      await k.dispose()
      expect(await eventually(() => serverPids(ws).length === 0)).toBe(true)
      expect(await eventually(() => fs.readFileSync(settings, 'utf8') === '{"original":true}')).toBe(true)
    })

    it('network off: a server cannot open a socket to the host', async () => {
      const host = await listener()
      try {
        const k = await start('read-only')
        const r = await k.call('mcp__fix__connect', { host: '127.0.0.1', port: host.port })
        expect(r.isError, text(r)).toBe(true)
        expect(r.error?.message).toMatch(/connect failed/)
        expect(host.reached()).toBe(0)
      } finally {
        host.close()
      }
    })

    it('once the kernel stops, the server and what it started are gone', async () => {
      const k = await start('read-only')
      expect(text(await k.call('mcp__fix__spawn_child', {}))).toMatch(/^started/)
      const dir = k.dir
      await k.dispose()
      expect(await eventually(() => serverPids(dir).length === 0)).toBe(true)
    })

    it('network allow list: the server reaches a listed host through the proxy, and no other', async () => {
      const host = await listener()
      try {
        const k = await kernelWith({ sandbox: { backends: [backend] }, servers: {
          open: fixtureServer({ sandbox: { network: { allow: ['127.0.0.1'] } } }),
          closed: fixtureServer({ sandbox: { network: { allow: ['example.org'] } } }),
        } })
        const refused = await k.call('mcp__closed__connect_via_proxy', { host: '127.0.0.1', port: host.port })
        expect(refused.isError, text(refused)).toBe(true)
        expect(refused.error?.message).toMatch(/proxy refused: HTTP\/1\.[01] 403/)
        expect(host.reached()).toBe(0)
        const direct = await k.call('mcp__open__connect', { host: '127.0.0.1', port: host.port })
        expect(direct.isError).toBe(true)
        expect(host.reached()).toBe(0)
        const tunnel = await k.call('mcp__open__connect_via_proxy', { host: '127.0.0.1', port: host.port })
        expect(tunnel.isError, text(tunnel)).toBe(false)
        expect(await eventually(() => host.reached() === 1)).toBe(true)
      } finally {
        host.close()
      }
    })

    it('a server cannot read the credential stores the sandbox denies', async () => {
      const k = await start('read-only')
      const r = await k.call('mcp__fix__read_file', { path: '/etc/shadow' })
      expect(r.isError).toBe(true)
    })
  })
}
