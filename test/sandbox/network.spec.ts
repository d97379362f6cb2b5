// Network by host on the real backends: a confined command reaches the
// listed names through the sandbox's proxy (HTTP, CONNECT, SOCKS5) and
// nothing else — not a denied name, not a raw address, not a port beside
// the proxy, not UDP (so no DNS), not a unix socket — and a proxy that is
// gone is a refused connection. Every server is on loopback and every name
// is resolved by the tests' own resolver.
import dgram from 'node:dgram'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Session } from '@dsh/kernel'
import { SandboxService, type Confined, type LocalBackend, type NetworkPolicy } from '@dsh/sandbox'
import { lacks, skipWhen } from '../backends.js'
import { cleanTemps, NET_PROBE, runConfined, sleep, tmp } from '../adversarial/harness.js'
import { networkEvents, startWeb, testLookup, type Web } from './network-helpers.js'
import { controlConnection, controlDatagram } from './control.js'

const CURL = '/usr/bin/curl'
const haveCurl = fs.existsSync(CURL)

for (const backend of ['bwrap', 'landlock-ns', 'landlock'] as LocalBackend[]) {
  const skip = (await lacks(backend, `network by host on ${backend}`)) || !haveCurl
  if (!haveCurl) console.warn(`skipping network by host on ${backend}: ${CURL} is not installed`)

  describe.skipIf(skip)(`network by host (${backend})`, () => {
    let ctx: Context
    let service: SandboxService
    let session: Session
    let web: Web
    let ws: string
    let tools: string
    let calls = 0

    beforeAll(async () => {
      ws = tmp(`net-${backend}`)
      tools = tmp(`net-tools-${backend}`, fs.existsSync('/var/tmp') ? '/var/tmp' : undefined)
      fs.writeFileSync(path.join(tools, 'net.pl'), NET_PROBE)
      web = await startWeb()
      ctx = new Context()
      ctx.plugin(SandboxService, { backends: [backend], workspace: ws, lookup: testLookup })
      await ctx.start()
      service = ctx.get('sandbox') as SandboxService
      session = new Session(tmp('net-sessions'), { id: `net-${backend}` })
    })
    afterAll(async () => {
      await ctx?.stop()
      await web?.close()
      session?.close()
      cleanTemps()
    })

    /** Run `script` confined; `during` runs on the host once the command has started. */
    async function sh(script: string, network: NetworkPolicy, opts: { during?: (cleanup: () => void, confined: Confined) => Promise<void> } = {}) {
      const callId = `call-${++calls}`
      const confined = await service.confine(['/bin/sh', '-c', script], { mode: 'read-only', workspace: ws, network }, { session, callId })
      try {
        const running = runConfined(confined, ws, { timeoutMs: 20_000 })
        await opts.during?.(() => confined.cleanup(), confined)
        const run = await running
        return { ...run, confined, events: networkEvents(session, callId) }
      } finally {
        confined.cleanup()
      }
    }
    // -f: an HTTP error (the proxy's 403) is a failure, not a page
    const curl = (args: string) => `${CURL} -fsS --max-time 8 ${args}; echo " exit=$?"`
    const url = (host: string) => `http://${host}:${web.port}/`

    it('an allowed name is reached by plain HTTP, a CONNECT tunnel and SOCKS5, each connection recorded', async () => {
      const before = web.hits.length
      const r = await sh([
        curl(url('allowed.test')),
        curl(`--proxytunnel ${url('api.allowed.test')}`),
        curl(`-x "$ALL_PROXY" ${url('allowed.test')}`),
      ].join('; '), { allow: ['local:allowed.test', 'local:*.allowed.test'] })
      expect(r.stdout.trim().split('\n')).toEqual([
        `hello allowed.test:${web.port} exit=0`,
        `hello api.allowed.test:${web.port} exit=0`,
        `hello allowed.test:${web.port} exit=0`,
      ])
      expect(web.hits.slice(before)).toEqual([`allowed.test:${web.port}`, `api.allowed.test:${web.port}`, `allowed.test:${web.port}`])
      expect(r.events).toEqual([
        { host: 'allowed.test', port: web.port, allowed: true },
        { host: 'api.allowed.test', port: web.port, allowed: true },
        { host: 'allowed.test', port: web.port, allowed: true },
      ])
      expect(r.confined.env).toMatchObject({ HTTP_PROXY: expect.stringMatching(/^http:\/\/dsh:[\w-]{24}@127\.0\.0\.1:\d+$/), ALL_PROXY: expect.stringMatching(/^socks5h:\/\/dsh:[\w-]{24}@127\.0\.0\.1:\d+$/) })
    })

    it('an allowed name that resolves to the host\'s loopback is refused (DNS rebinding) and nothing is reached', async () => {
      const before = web.hits.length
      const r = await sh([curl(url('allowed.test')), curl(`--proxytunnel ${url('allowed.test')}`), curl(`-x "$ALL_PROXY" ${url('allowed.test')}`)].join('; '), { allow: ['allowed.test'] })
      expect(r.stdout).not.toMatch(/hello/)
      expect(web.hits.length).toBe(before)
      expect(r.events).toEqual([1, 2, 3].map(() => ({ host: 'allowed.test', port: web.port, allowed: false })))
    })

    it.skipIf(skipWhen(backend === 'bwrap', `the host-process credential check on ${backend}`, 'its proxy is a unix socket in a private directory bridged into the namespace, not a port on the host'))('a host process without the call\'s credential is refused on the call\'s port, by HTTP and SOCKS5; the command, which has it, gets through', async () => {
      const before = web.hits.length
      const go = path.join(ws, 'go-cred')
      const wait = `i=0; while [ ! -e ${go} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`
      const answers: string[] = []
      const r = await sh(`${wait}; ${curl(url('allowed.test'))}`, { allow: ['local:allowed.test'] }, {
        during: async (_cleanup, confined) => {
          const port = Number(/:(\d+)$/.exec(confined.env.HTTP_PROXY)![1])
          const ask = (bytes: Buffer | string) => new Promise<string>((resolve) => {
            const socket = net.connect(port, '127.0.0.1')
            let data = Buffer.alloc(0)
            socket.on('data', (chunk) => (data = Buffer.concat([data, chunk])))
            socket.on('close', () => resolve(data.toString('latin1')))
            socket.on('error', () => resolve(`error ${data.toString('latin1')}`))
            socket.write(bytes)
            setTimeout(() => socket.destroy(), 2000).unref()
          })
          answers.push(await ask(`CONNECT allowed.test:${web.port} HTTP/1.1\r\n\r\n`))
          answers.push(await ask(Buffer.from([5, 1, 0])))
          // nor can it be read from the launcher's argv: /proc/PID/cmdline is readable by everyone
          const password = /dsh:([^@]+)@/.exec(confined.env.HTTP_PROXY)![1]
          expect(confined.argv.join('\n')).not.toContain(password)
          fs.writeFileSync(go, '')
        },
      })
      fs.rmSync(go)
      expect(answers[0]).toMatch(/^HTTP\/1\.1 407 /)
      expect([...Buffer.from(answers[1], 'latin1')]).toEqual([5, 255])
      expect(r.stdout.trim()).toBe(`hello allowed.test:${web.port} exit=0`)
      expect(web.hits.length).toBe(before + 1)
      expect(r.events).toEqual([
        { host: 'allowed.test', port: web.port, allowed: false },
        { host: '', port: 0, allowed: false },
        { host: 'allowed.test', port: web.port, allowed: true },
      ])
    })

    it('a denied name and a name the list does not hold are refused and recorded, by HTTP and SOCKS5; deny wins over allow', async () => {
      const before = web.hits.length
      const r = await sh([
        curl(url('denied.test')),
        curl(`-x "$ALL_PROXY" ${url('blocked.allowed.test')}`),
        curl(`--proxytunnel ${url('blocked.allowed.test')}`),
      ].join('; '), { allow: ['allowed.test', '*.allowed.test'], deny: ['blocked.allowed.test'] })
      expect(r.stdout).not.toMatch(/hello/)
      expect(r.stdout.match(/exit=(\d+)/g)!.map((e) => e.slice(5))).not.toContain('0')
      expect(web.hits.length).toBe(before)
      expect(r.events).toEqual([
        { host: 'denied.test', port: web.port, allowed: false },
        { host: 'blocked.allowed.test', port: web.port, allowed: false },
        { host: 'blocked.allowed.test', port: web.port, allowed: false },
      ])
    })

    it('a raw IP address is refused through the proxy, and going around the proxy reaches nothing', async () => {
      const before = web.hits.length
      const r = await sh([
        curl(`--proxytunnel ${url('127.0.0.1')}`),
        curl(`-x "$ALL_PROXY" ${url('127.0.0.1')}`),
        curl(`--noproxy '*' ${url('127.0.0.1')}`),
        `/usr/bin/perl ${tools}/net.pl tcp ${web.port}`,
      ].join('; '), { allow: ['allowed.test'] })
      expect(r.stdout).not.toMatch(/hello/)
      // only the proxy's port may be connected to (on bwrap, within a namespace where only loopback exists)
      expect(r.stdout.trim().split('\n').at(-1)).toBe('EACCES')
      expect(web.hits.length).toBe(before)
      expect(r.events).toEqual([{ host: '127.0.0.1', port: web.port, allowed: false }, { host: '127.0.0.1', port: web.port, allowed: false }])
    })

    it('an address listed in allow is reached', async () => {
      const r = await sh(curl(`--proxytunnel ${url('127.0.0.1')}`), { allow: ['127.0.0.1'] })
      expect(r.stdout.trim()).toBe(`hello 127.0.0.1:${web.port} exit=0`)
      expect(r.events).toEqual([{ host: '127.0.0.1', port: web.port, allowed: true }])
    })

    it('no DNS from inside: a UDP query to a resolver on loopback never leaves, and names do not resolve', async () => {
      const dns = dgram.createSocket('udp4')
      let received = 0
      dns.on('message', () => received++)
      await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve))
      try {
        const r = await sh(`/usr/bin/perl ${tools}/net.pl udp ${dns.address().port}; /usr/bin/getent hosts allowed.test; echo "getent=$?"`, { allow: ['*'] })
        expect(r.stdout.split('\n')[0]).toBe('EACCES')
        expect(r.stdout).toMatch(/getent=2/)
        await controlDatagram(dns.address().port, () => received, 0)
        expect(received).toBe(1)
      } finally {
        dns.close()
      }
    })

    it('sockets other than TCP, and unix sockets on the host, are refused', async () => {
      let hits = 0
      const unix = net.createServer((s) => (hits++, s.destroy()))
      const sock = path.join(tools, 'host.sock')
      await new Promise<void>((resolve) => unix.listen(sock, resolve))
      try {
        const probes = ['socket netlink', 'socket unix_stream', 'socket unix_dgram', `unix ${sock}`, 'listen', 'bind_path /tmp/x.sock']
        const r = await sh(probes.map((p) => `/usr/bin/perl ${tools}/net.pl ${p}`).join('; '), { allow: ['*'] })
        expect(r.stdout.trim().split('\n')).toEqual(['EACCES', 'EACCES', 'EACCES', 'EACCES', 'EACCES', 'EACCES'])
        await controlConnection({ path: sock }, () => hits, 0)
        expect(hits).toBe(1)
      } finally {
        unix.close()
      }
    })

    it('an empty allow list refuses every name', async () => {
      const before = web.hits.length
      const r = await sh(`${curl(url('allowed.test'))}; ${curl(`-x "$ALL_PROXY" ${url('allowed.test')}`)}`, { allow: [] })
      expect(r.stdout).not.toMatch(/hello/)
      expect(web.hits.length).toBe(before)
      expect(r.events.map((e) => e.allowed)).toEqual([false, false])
    })

    it('a proxy that is down is a refused connection, never an open one', async () => {
      const before = web.hits.length
      // the call's listener is closed once the command runs, before it connects: its port (or socket) has nobody behind it
      const go = path.join(ws, 'go')
      const wait = `i=0; while [ ! -e ${go} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done`
      const r = await sh(`${wait}; ${curl(url('allowed.test'))}; ${curl(`--noproxy '*' ${url('127.0.0.1')}`)}`, { allow: ['allowed.test'] }, {
        during: async (cleanup) => {
          await sleep(300)
          cleanup()
          fs.writeFileSync(go, '')
        },
      })
      fs.rmSync(go)
      expect(r.stdout).not.toMatch(/hello/)
      const exits = r.stdout.match(/exit=(\d+)/g)!
      // Landlock: nothing listens on the port (curl 7, could not connect); bwrap: the relay resets the connection it cannot pass on
      if (backend !== 'bwrap') expect(exits).toEqual(['exit=7', 'exit=7'])
      else expect(exits.length === 2 && !exits.includes('exit=0')).toBe(true)
      expect(web.hits.length).toBe(before)
      expect(r.events).toEqual([])
    })

    it('reports what the backend cannot enforce of the policy', async () => {
      const r = await sh('true', { allow: ['allowed.test'] })
      if (backend !== 'bwrap') expect(r.confined.unenforced).toContain('proxy-port-any-address')
      else expect(r.confined.unenforced).not.toContain('proxy-port-any-address')
      expect(r.confined.unenforced).not.toContain('pathname-unix-sockets')
    })
  })
}
