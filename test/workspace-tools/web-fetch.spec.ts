// web_fetch through the real kernel against HTTP servers on 127.0.0.1: a page
// of an allowed host comes back as Markdown; a host outside the allow list, a
// redirect leaving it and the network off are DENIED with the setting that
// allows them, recorded as sandbox/network, and nothing reaches the refused
// server; a huge body is capped, a server that never answers is bounded by
// the deadline, binary content is summarised, and a Claude Code
// `WebFetch(domain:…)` deny rule applies to it.
import dns from 'node:dns'
import fs from 'node:fs'
import { execFileSync } from 'node:child_process'
import http from 'node:http'
import https from 'node:https'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createTestKernel } from 'dsh/testing'
import { setup, teardown, text, tmp } from './helpers.js'

afterEach(teardown)

interface Site {
  port: number
  /** request paths that reached the server */
  hits: string[]
  /** bytes /big wrote before the client went away */
  bigSent: () => number
  /** resolves once the last /big response closed (the client went away, or it was all written) */
  bigClosed: () => Promise<void>
  close(): Promise<void>
}

const PAGE = '<!doctype html><html><head><title>T</title><style>p{}</style><script>alert(1)</script></head><body><h1>Hello</h1><p>A <a href="/x">link</a> and <b>bold</b>.</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>'

// a page turndown takes seconds over (deeply nested lists and tables, ~1.5 MB)
const HEAVY = `<html><body>${'<div><ul><li><table><tr><td><b>x</b> <a href="/y">y</a></td></tr></table></li></ul></div>\n'.repeat(18_000)}</body></html>`

async function site(): Promise<Site> {
  const hits: string[] = []
  let bigSent = 0
  let bigClosed = Promise.resolve()
  const server = http.createServer((req, res) => {
    hits.push(String(req.url))
    const port = (server.address() as { port: number }).port
    switch (req.url) {
      case '/page': return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
      case '/gzip': return void res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(PAGE))
      case '/text': return void res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from('caf\xe9 <b>not html</b>', 'latin1'))
      case '/png': return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4096' }).end(Buffer.alloc(4096, 1))
      case '/in': return void res.writeHead(302, { location: '/page' }).end()
      case '/out': return void res.writeHead(302, { location: `http://localhost:${port}/page` }).end()
      case '/loop': return void res.writeHead(301, { location: '/loop' }).end()
      case '/file': return void res.writeHead(302, { location: 'file:///etc/passwd' }).end()
      case '/hang': return // never answers
      case '/heavy': return void res.writeHead(200, { 'content-type': 'text/html' }).end(HEAVY)
      case '/big': {
        // 50 MB, written as fast as the client reads, stopped when it goes away
        res.writeHead(200, { 'content-type': 'text/plain' })
        const chunk = Buffer.alloc(64 * 1024, 'a')
        const pump = () => {
          while (bigSent < 50 * 1024 * 1024) {
            bigSent += chunk.length
            if (!res.write(chunk)) return void res.once('drain', pump)
          }
          res.end()
        }
        bigClosed = new Promise((resolve) => res.on('close', resolve))
        res.on('close', () => res.destroy())
        return pump()
      }
      default: return void res.writeHead(404).end('no')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    hits,
    bigSent: () => bigSent,
    bigClosed: () => bigClosed,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

// the name test needs this machine's resolver to answer localhost with 127.0.0.1 first
const localhostIsLoopback = await new Promise<boolean>((resolve) => dns.lookup('localhost', (error, address) => resolve(!error && address === '127.0.0.1')))

const network = (k: { session: { events(): ReadonlyArray<{ type: string; data: unknown }> } }, callId: string) =>
  k.session.events().filter((e) => e.type === 'sandbox/network' && (e.data as { callId: string }).callId === callId).map((e) => e.data)

describe('web_fetch', () => {
  let web: Site
  beforeAll(async () => {
    web = await site()
  })
  afterAll(() => web.close())

  const allowed = { network: { allow: ['127.0.0.1'] } }

  it('returns an allowed host\'s HTML page as Markdown, recorded as sandbox/network and in tool/result', async () => {
    const { k, resultEvent } = await setup(allowed)
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/page`, prompt: 'the heading' }, { callId: 'wf1' })
    expect(r.isError, text(r)).toBe(false)
    const out = text(r)
    expect(out).toContain(`URL: http://127.0.0.1:${web.port}/page\nStatus: 200 OK\nContent-Type: text/html;`)
    expect(out).toContain('# Hello\n\nA [link](/x) and **bold**.')
    expect(out).toMatch(/\| a +\| b +\|/)
    expect(out).not.toMatch(/alert|p\{\}|\bT\b/)
    expect(network(k, 'wf1')).toEqual([{ callId: 'wf1', host: '127.0.0.1', port: web.port, allowed: true, address: '127.0.0.1' }])
    expect(resultEvent('wf1')).toMatchObject({ fetch: { status: 200, contentType: 'text/html', kind: 'html', truncated: false } })
    // the call's arguments, prompt included, are in the log
    expect(k.session.events().find((e) => e.type === 'tool/call' && (e.data as any).callId === 'wf1')?.data).toMatchObject({ arguments: { prompt: 'the heading' } })
    // compressed, and text in its own charset, as it is
    expect(text(await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/gzip` }))).toContain('# Hello')
    expect(text(await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/text` }))).toMatch(/\n\ncafé <b>not html<\/b>$/)
  })

  it('a host outside the allow list is DENIED naming the host and the remedy, recorded allowed:false, and the server sees nothing', async () => {
    const { k } = await setup(allowed)
    const before = web.hits.length
    const r = await k.call('web_fetch', { url: `http://localhost:${web.port}/page` }, { callId: 'wf2' })
    expect(r.isError).toBe(true)
    expect(r.error?.code).toBe('DENIED')
    expect(r.error?.message).toMatch(/localhost:\d+: localhost is not in the network allow list\. To allow it: add "localhost" to sandbox\.network\.allow in dsh\.yml/)
    expect(network(k, 'wf2')).toEqual([{ callId: 'wf2', host: 'localhost', port: web.port, allowed: false, reason: 'localhost is not in the network allow list' }])
    expect(web.hits.length).toBe(before)
  })

  it('under allow: ["*"] the host\'s own services stay out of reach: loopback in every spelling, and a name leading there', async () => {
    const { k } = await setup({ network: { allow: ['*'] } })
    const before = web.hits.length
    for (const host of ['127.0.0.1', '0x7f000001', '2130706433', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost']) {
      const r = await k.call('web_fetch', { url: `http://${host}:${web.port}/page` })
      expect(r.error?.code, host).toBe('DENIED')
      expect(r.error?.message, host).toMatch(/is not in the network allow list|a loopback address/)
    }
    expect(web.hits.length).toBe(before)
  })

  it.skipIf(!localhostIsLoopback)('a name is resolved once by the sandbox and the socket goes to the address it checked; a name leading to loopback needs local:', async () => {
    const { k } = await setup({ network: { allow: ['local:localhost'] } })
    const before = web.hits.length
    const r = await k.call('web_fetch', { url: `http://localhost:${web.port}/text` }, { callId: 'wf8' })
    expect(text(r)).toMatch(/\n\ncafé <b>not html<\/b>$/)
    expect(network(k, 'wf8')).toEqual([{ callId: 'wf8', host: 'localhost', port: web.port, allowed: true, address: '127.0.0.1' }])
    expect(web.hits.length).toBe(before + 1)
    await k.cleanup()
    // allowed, but it resolves to loopback and is not marked local: refused, with the remedy
    const plain = await setup({ network: { allow: ['localhost'] } })
    const local = await plain.k.call('web_fetch', { url: `http://localhost:${web.port}/page` })
    expect(local.error?.code).toBe('DENIED')
    expect(local.error?.message).toContain('localhost resolves to 127.0.0.1, a loopback address')
    expect(local.error?.message).toContain('To allow it: add "local:localhost" (or the address 127.0.0.1) to sandbox.network.allow in dsh.yml')
    expect(web.hits.length).toBe(before + 1)
  })

  it('a redirect is followed within the allow list and refused when it leaves it; file: and loops are refused', async () => {
    const { k } = await setup(allowed)
    const inside = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/in` }, { callId: 'wf3' })
    expect(text(inside)).toContain('# Hello')
    expect(network(k, 'wf3').map((e: any) => e.allowed)).toEqual([true, true])
    const before = web.hits.filter((h) => h === '/page').length
    const out = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/out` }, { callId: 'wf4' })
    expect(out.error?.code).toBe('DENIED')
    expect(out.error?.message).toMatch(new RegExp(`refuses localhost:${web.port} \\(reached by redirect from http://127\\.0\\.0\\.1:${web.port}/out\\)`))
    expect(network(k, 'wf4').map((e: any) => [e.host, e.allowed])).toEqual([['127.0.0.1', true], ['localhost', false]])
    expect(web.hits.filter((h) => h === '/page').length).toBe(before)
    expect((await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/file` })).error?.message).toMatch(/redirects to file: \(web_fetch follows http and https only\)/)
    expect((await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/loop` })).error?.message).toMatch(/more than 5 redirects \(workspace-tools webFetchMaxRedirects\)/)
  })

  it('a 50 MB body is cut at webFetchMaxBytes and the rest is not fetched', async () => {
    const { k, resultEvent } = await setup({ ...allowed, config: { webFetchMaxBytes: 100_000 } })
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/big` }, { callId: 'wf5' })
    expect(r.isError, text(r)).toBe(false)
    expect(text(r)).toContain('[the body was cut at 100000 bytes (workspace-tools webFetchMaxBytes); the rest was not fetched]')
    expect(text(r).match(/a{1000,}/)![0].length).toBe(100_000)
    expect(resultEvent('wf5')).toMatchObject({ fetch: { bytes: 100_000, truncated: true } })
    // the server stopped well short of 50 MB: socket buffers, not the body, are what it wrote past the cap
    await web.bigClosed()
    expect(web.bigSent()).toBeLessThan(20 * 1024 * 1024)
  })

  it('a long page is spilled like any large result: a preview inline, the whole text in a file read can open', async () => {
    const dir = tmp('wf-spill')
    const k = await createTestKernel({
      sandbox: { workspace: dir, network: { allow: ['127.0.0.1'] } },
      plugins: { 'workspace-tools': { webFetchMaxBytes: 300_000 }, 'spill-policy': { maxInlineBytes: 4096 } },
    })
    try {
      const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/big` })
      const inline = text(r)
      expect(Buffer.byteLength(inline)).toBeLessThanOrEqual(4096)
      const file = /full text at (\S+) — open it with read/.exec(inline)?.[1]
      expect(file).toBeDefined()
      expect(fs.readFileSync(file!, 'utf8')).toContain('a'.repeat(300_000))
    } finally {
      await k.cleanup()
    }
  })

  it('a server that never answers is bounded by webFetchTimeoutMs: TIMEOUT naming the setting', async () => {
    const { k } = await setup({ ...allowed, config: { webFetchTimeoutMs: 500 } })
    const started = Date.now()
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/hang` })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(r.error?.code).toBe('TIMEOUT')
    expect(r.error?.message).toMatch(/webFetchTimeoutMs, 500 ms/)
  })

  it('a page whose conversion outlasts the deadline is TIMEOUT too: the converter\'s thread is ended, not waited for', async () => {
    const { k } = await setup({ ...allowed, config: { webFetchTimeoutMs: 800 } })
    const started = Date.now()
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/heavy` })
    expect(r.error?.code, text(r)).toBe('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it('binary content is summarised, never returned', async () => {
    const { k } = await setup(allowed)
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/png` })
    expect(text(r)).toMatch(/Content-Type: image\/png; 4096 bytes\n\n\[binary content: web_fetch returns HTML pages and text only; nothing of the body was read\]$/)
  })

  it('with the network off every fetch is DENIED with what to put in dsh.yml, recorded, and nothing is reached', async () => {
    const { k } = await setup()
    const before = web.hits.length
    const r = await k.call('web_fetch', { url: `http://127.0.0.1:${web.port}/page` }, { callId: 'wf6' })
    expect(r.error?.code).toBe('DENIED')
    expect(r.error?.message).toContain(`the sandbox's network is off. To allow it: set sandbox.network in dsh.yml to { allow: ["127.0.0.1"] }`)
    expect(network(k, 'wf6')).toEqual([{ callId: 'wf6', host: '127.0.0.1', port: web.port, allowed: false, reason: 'the sandbox\'s network is off' }])
    expect(web.hits.length).toBe(before)
  })

  it.skipIf(!fs.existsSync('/usr/bin/openssl'))('https checks the certificate: a self-signed one is a failure naming it, and no request is sent', async () => {
    const dir = tmp('wf-tls')
    execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
    let requests = 0
    const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (_req, res) => {
      requests++
      res.end('secret')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { k } = await setup(allowed)
      const r = await k.call('web_fetch', { url: `https://127.0.0.1:${(server.address() as { port: number }).port}/` })
      expect(r.error?.code).toBe('TOOL_FAILED')
      expect(r.error?.message).toMatch(/^web_fetch failed: https:\/\/127\.0\.0\.1:\d+\/: self[- ]signed certificate/)
      expect(requests).toBe(0)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('a URL that is not http(s) is refused at the boundary', async () => {
    const { k } = await setup(allowed)
    expect((await k.call('web_fetch', { url: 'file:///etc/passwd' })).error?.code).toBe('INVALID_ARGS')
    expect((await k.call('web_fetch', { url: 'http://127.0.0.1/', extra: 1 })).error?.code).toBe('INVALID_ARGS')
  })

  it('a Claude Code WebFetch(domain:…) deny rule denies it, trailing dot or not, and nothing is reached', async () => {
    const dir = tmp('wf-rules')
    const settings = path.join(dir, 'settings.json')
    fs.writeFileSync(settings, JSON.stringify({ permissions: { deny: ['WebFetch(domain:localhost)'] } }))
    const k = await createTestKernel({
      sandbox: { workspace: dir, network: { allow: ['localhost', 'local:localhost'] } },
      plugins: { 'workspace-tools': {}, 'claude-code-permissions': { settingsFiles: [settings], home: dir } },
    })
    try {
      const before = web.hits.length
      for (const host of ['localhost', 'LOCALHOST', 'localhost.']) {
        const r = await k.call('web_fetch', { url: `http://${host}:${web.port}/page` })
        expect(r.error?.code, host).toBe('DENIED')
        expect(r.error?.message, host).toMatch(/WebFetch\(domain:localhost\)/)
      }
      expect(web.hits.length).toBe(before)
    } finally {
      await k.cleanup()
    }
  })

  it('a Claude Code hook matching WebFetch sees web_fetch with Claude Code\'s input and denies it before any connection', async () => {
    const dir = tmp('wf-hooks')
    // outside the workspace: hooks-claude-code refuses settings a confined command could rewrite
    const settings = path.join(tmp('wf-hook-settings'), 'settings.json')
    const hook = path.join(import.meta.dirname, 'fixtures', 'deny-webfetch.mjs')
    fs.writeFileSync(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'WebFetch', hooks: [{ type: 'command', command: `'${hook}'` }] }] } }))
    const k = await createTestKernel({
      sandbox: { workspace: dir, network: { allow: ['127.0.0.1'] } },
      plugins: { 'workspace-tools': {}, 'hooks-claude-code': { workspace: dir, settingsFiles: [settings] } },
    })
    try {
      const before = web.hits.length
      const url = `http://127.0.0.1:${web.port}/page`
      const r = await k.call('web_fetch', { url, prompt: 'the title' }, { callId: 'wf7' })
      expect(r.error?.code).toBe('DENIED')
      expect(r.error?.message).toContain(`hook saw WebFetch ${url} asking "the title"`)
      expect(network(k, 'wf7')).toEqual([])
      expect(web.hits.length).toBe(before)
    } finally {
      await k.cleanup()
    }
  })
})
