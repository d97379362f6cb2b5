// The network proxy and the host patterns on their own, with real sockets on
// loopback: what a pattern matches (and the addresses in disguise it never
// matches), bad patterns named by key path, the proxy's two protocols, and
// every way it fails closed — a record that cannot be written, a client that
// never says what it wants, a lease or a proxy that is closed, a backend
// that cannot bridge the proxy, a call that cannot be recorded.
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KernelError, Session } from '@dsh/kernel'
import { decideConnection, hostAllowed, MAX_RECORDED_UNAUTHORIZED, NetworkProxy, resolveNetwork, SandboxService, type ProxyConnection, type ProxyLease, type ResolvedNetworkRules } from '@dsh/sandbox'
import { startWeb, testLookup, type Web } from './network-helpers.js'
import { controlConnection } from './control.js'

const rules = (allow: string[], deny: string[] = []) => resolveNetwork({ allow, deny }) as ResolvedNetworkRules

const testLookupFailing = ((hostname: string, _options: unknown, callback: (...args: unknown[]) => void) => {
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
}) as unknown as net.LookupFunction

describe('host patterns', () => {
  it('a name matches itself; *.name the names below it, not the name; * every name but no address', () => {
    const r = rules(['example.com', '*.svc.example'])
    expect(hostAllowed(r, 'example.com')).toBe(true)
    expect(hostAllowed(r, 'EXAMPLE.com.')).toBe(true)
    expect(hostAllowed(r, 'www.example.com')).toBe(false)
    expect(hostAllowed(r, 'a.svc.example')).toBe(true)
    expect(hostAllowed(r, 'a.b.svc.example')).toBe(true)
    expect(hostAllowed(r, 'svc.example')).toBe(false)
    expect(hostAllowed(r, 'evilsvc.example')).toBe(false)
    expect(hostAllowed(rules(['*']), 'anything.test')).toBe(true)
    expect(hostAllowed(rules(['*']), '127.0.0.1')).toBe(false)
    expect(hostAllowed(rules(['*']), '::1')).toBe(false)
  })

  it('addresses in disguise are refused even under *: getaddrinfo would read them as 127.0.0.1', () => {
    for (const host of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', 'foo.0x7f']) expect(hostAllowed(rules(['*']), host), host).toBe(false)
  })

  it('an address matches only when listed, in any spelling of it; deny wins over allow', () => {
    const r = rules(['127.0.0.1', '[::1]', '*.test'], ['bad.test'])
    expect(hostAllowed(r, '127.0.0.1')).toBe(true)
    expect(hostAllowed(r, '0000:0000:0000:0000:0000:0000:0000:0001')).toBe(true)
    expect(hostAllowed(r, '[::1]')).toBe(true)
    expect(hostAllowed(r, '::ffff:127.0.0.1')).toBe(false)
    expect(hostAllowed(r, 'ok.test')).toBe(true)
    expect(hostAllowed(r, 'bad.test')).toBe(false)
    expect(hostAllowed(rules([]), 'ok.test')).toBe(false)
  })

  it('names are compared in their ASCII form; invalid names never match', () => {
    expect(hostAllowed(rules(['bücher.example']), 'xn--bcher-kva.example')).toBe(true)
    for (const host of ['', 'a..b', '-a.test', 'a b.test', 'a.test/x', 'a.test:80']) expect(hostAllowed(rules(['*']), host), host).toBe(false)
  })

  it('a bad pattern or shape is INVALID_POLICY naming the key path', () => {
    const bad = (value: unknown) => {
      try {
        resolveNetwork(value)
      } catch (error) {
        expect(error).toBeInstanceOf(KernelError)
        return (error as KernelError).message
      }
      throw new Error('accepted')
    }
    expect(bad({ allow: ['*.*.com'] })).toMatch(/network\.allow\[0\] "\*\.\*\.com" is not a host pattern: use a name \(example\.com\), \*\.example\.com/)
    expect(bad({ allow: ['ok.test'], deny: ['http://x.test'] })).toMatch(/network\.deny\[0\]/)
    expect(bad({ allow: ['ok.test:443'] })).toMatch(/network\.allow\[0\]/)
    expect(bad({ deny: [] })).toMatch(/network\.allow is required/)
    expect(bad({ allow: 'ok.test' })).toMatch(/network\.allow must be an array/)
    expect(bad({ allow: [], ports: [] })).toMatch(/network\.ports is not a key of network/)
    expect(bad(true)).toMatch(/network must be "off", "on" or \{ allow/)
    expect(resolveNetwork('on')).toBe('on')
    expect(resolveNetwork(undefined)).toBe('off')
  })
})

type Step = [send: Buffer | string, until: (data: Buffer) => boolean]

/** On a fresh connection to the lease, send each step once the previous one's answer came; all that was read (until it closes). */
function talk(port: number, ...steps: Step[]): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    let data = Buffer.alloc(0)
    let step = 0
    const done = () => {
      socket.destroy()
      resolve(data)
    }
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk])
      if (!steps[step][1](data)) return
      if (++step === steps.length) return done()
      socket.write(steps[step][0])
    })
    socket.on('close', done)
    socket.on('error', done)
    socket.write(steps[0][0])
  })
}

type Credential = ProxyLease['endpoint']['credential']

/** The Proxy-Authorization header line of a credential. */
const auth = ({ username, password }: Credential) => `Proxy-Authorization: Basic ${Buffer.from(`${username}:${password}`).toString('base64')}\r\n`

/** A SOCKS5 client's steps: greeting (username/password), its credential, then CONNECT to host:port by name. */
const socks = (host: string, port: number, { username, password }: Credential): Step[] => [
  [Buffer.from([5, 1, 2]), (d) => d.length >= 2],
  [Buffer.concat([Buffer.from([1, username.length]), Buffer.from(username), Buffer.from([password.length]), Buffer.from(password)]), (d) => d.length >= 4],
  [Buffer.concat([Buffer.from([5, 1, 0, 3, host.length]), Buffer.from(host), Buffer.from([port >> 8, port & 255])]), (d) => d.length >= 14],
]

/** A TCP server on 127.0.0.1 that counts the connections reaching it. */
async function counter(): Promise<{ port: number; count: () => number; close: () => void }> {
  let n = 0
  const server = net.createServer((s) => {
    n++
    s.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as net.AddressInfo).port, count: () => n, close: () => server.close() }
}

/** A resolver answering every name with `address` (as the tests' DNS would), counting its calls. */
function resolver(address: string) {
  const calls: string[] = []
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    calls.push(hostname)
    const family = net.isIP(address)
    if (options.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }) as unknown as net.LookupFunction
  return { lookup, calls }
}

describe('the network proxy', () => {
  let web: Web
  beforeAll(async () => {
    web = await startWeb()
  })
  afterAll(() => web.close())

  it('tunnels CONNECT and SOCKS5 to an allowed name, resolved by its own lookup, and records each attempt', async () => {
    const seen: ProxyConnection[] = []
    const proxy = new NetworkProxy({ lookup: testLookup })
    // the test resolver puts every name on loopback: local: lets this one lead there
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', (c) => seen.push(c))
    try {
      const cred = lease.endpoint.credential
      const get = `GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n`
      const connect = await talk(lease.endpoint.port, [`CONNECT allowed.test:${web.port} HTTP/1.1\r\nHost: allowed.test\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')], [get, (d) => d.includes('hello')])
      expect(connect.toString()).toMatch(/^HTTP\/1\.1 200 Connection Established[\s\S]*hello allowed\.test$/)
      const tunnel = await talk(lease.endpoint.port, ...socks('allowed.test', web.port, cred), [get, (d) => d.includes('hello')])
      expect([...tunnel.subarray(0, 6)]).toEqual([5, 2, 1, 0, 5, 0])
      expect(tunnel.toString()).toMatch(/hello allowed\.test$/)
      expect(seen).toEqual([{ host: 'allowed.test', port: web.port, allowed: true, address: '127.0.0.1' }, { host: 'allowed.test', port: web.port, allowed: true, address: '127.0.0.1' }])
    } finally {
      proxy.close()
    }
  })

  it('refuses a name outside the list: 403 for HTTP, "not allowed" for SOCKS5, and nothing reaches the server', async () => {
    const before = web.hits.length
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {})
    try {
      const cred = lease.endpoint.credential
      const connect = await talk(lease.endpoint.port, [`CONNECT denied.test:${web.port} HTTP/1.1\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(connect.toString()).toMatch(/^HTTP\/1\.1 403 /)
      const plain = await talk(lease.endpoint.port, [`GET http://denied.test:${web.port}/ HTTP/1.1\r\nHost: denied.test\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(plain.toString()).toMatch(/^HTTP\/1\.1 403 /)
      const refused = await talk(lease.endpoint.port, ...socks('denied.test', web.port, cred))
      expect([...refused.subarray(0, 6)]).toEqual([5, 2, 1, 0, 5, 2])
      expect(web.hits.length).toBe(before)
    } finally {
      proxy.close()
    }
  })

  it('a record that cannot be written refuses the connection (no log, no allow)', async () => {
    const before = web.hits.length
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {
      throw new Error('disk full')
    })
    try {
      const cred = lease.endpoint.credential
      const connect = await talk(lease.endpoint.port, [`CONNECT allowed.test:${web.port} HTTP/1.1\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(connect.toString()).toMatch(/^HTTP\/1\.1 403 /)
      const refused = await talk(lease.endpoint.port, ...socks('allowed.test', web.port, cred))
      expect(refused[5]).toBe(2)
      expect(web.hits.length).toBe(before)
    } finally {
      proxy.close()
    }
  })

  it('a client that never says what it wants is dropped after the handshake deadline', async () => {
    const proxy = new NetworkProxy({ lookup: testLookup, handshakeTimeoutMs: 200 })
    const lease = await proxy.open(rules(['allowed.test']), 'tcp', () => {})
    try {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = net.connect(lease.endpoint.port, '127.0.0.1')
        socket.on('close', () => resolve(true))
        setTimeout(() => resolve(false), 5000).unref()
      })
      expect(closed).toBe(true)
    } finally {
      proxy.close()
    }
  })

  it('a closed lease refuses connections and cuts its tunnels; a closed proxy opens no lease', async () => {
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {})
    const tunnel = net.connect(lease.endpoint.port, '127.0.0.1')
    await new Promise<void>((resolve) => {
      tunnel.once('data', () => resolve())
      tunnel.write(`CONNECT allowed.test:${web.port} HTTP/1.1\r\n${auth(lease.endpoint.credential)}\r\n`)
    })
    const cut = new Promise<void>((resolve) => tunnel.on('close', () => resolve()))
    lease.close()
    await cut
    const refused = await new Promise<string>((resolve) => net.connect(lease.endpoint.port, '127.0.0.1').on('error', (e: NodeJS.ErrnoException) => resolve(String(e.code))).on('connect', () => resolve('open')))
    expect(refused).toBe('ECONNREFUSED')
    proxy.close()
    await expect(proxy.open(rules(['allowed.test']), 'tcp', () => {})).rejects.toThrow(/closed/)
  })

  it('an allowed name that resolves to a local address is refused, by HTTP, CONNECT and SOCKS5, and nothing reaches the server', async () => {
    const target = await counter()
    const seen: ProxyConnection[] = []
    const dns = resolver('127.0.0.1')
    const proxy = new NetworkProxy({ lookup: dns.lookup })
    const lease = await proxy.open(rules(['allowed.test']), 'tcp', (c) => seen.push(c))
    try {
      const cred = lease.endpoint.credential
      const connect = await talk(lease.endpoint.port, [`CONNECT allowed.test:${target.port} HTTP/1.1\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(connect.toString()).toMatch(/^HTTP\/1\.1 403 [\s\S]*allowed\.test resolves to 127\.0\.0\.1, a loopback address/)
      const plain = await talk(lease.endpoint.port, [`GET http://allowed.test:${target.port}/ HTTP/1.1\r\nHost: allowed.test\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(plain.toString()).toMatch(/^HTTP\/1\.1 403 /)
      const refused = await talk(lease.endpoint.port, ...socks('allowed.test', target.port, cred))
      expect([...refused.subarray(0, 6)]).toEqual([5, 2, 1, 0, 5, 2])
      await controlConnection({ host: '127.0.0.1', port: target.port }, target.count, 0)
      expect(target.count()).toBe(1)
      const reason = 'allowed.test resolves to 127.0.0.1, a loopback address; an allowed name may lead to a local address only when the address itself or local:allowed.test is in the allow list'
      const remedy = 'To allow it: add "local:allowed.test" (or the address 127.0.0.1) to sandbox.network.allow in dsh.yml, if that host\'s own services are meant to be reached.'
      expect(seen).toEqual([1, 2, 3].map(() => ({ host: 'allowed.test', port: target.port, allowed: false, reason, remedy })))
    } finally {
      proxy.close()
      target.close()
    }
  })

  it('a name resolved once: the connection goes to the address checked (the resolver is asked once per connection)', async () => {
    const dns = resolver('127.0.0.1')
    const proxy = new NetworkProxy({ lookup: dns.lookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {})
    try {
      const cred = lease.endpoint.credential
      const get = `GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n`
      await talk(lease.endpoint.port, [`CONNECT allowed.test:${web.port} HTTP/1.1\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')], [get, (d) => d.includes('hello')])
      await talk(lease.endpoint.port, ...socks('allowed.test', web.port, cred), [get, (d) => d.includes('hello')])
      const plain = await talk(lease.endpoint.port, [`GET http://allowed.test:${web.port}/ HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n${auth(cred)}\r\n`, (d) => d.includes('hello')])
      expect(plain.toString()).toMatch(/hello allowed\.test/)
      expect(dns.calls).toEqual(['allowed.test', 'allowed.test', 'allowed.test'])
    } finally {
      proxy.close()
    }
  })

  it('a lease reads a host\'s patterns once but checks where it leads on every connection: a second answer in the deny list is refused, and past the kept hosts every verdict still holds', async () => {
    const answers = ['127.0.0.1', '10.1.2.3', '127.0.0.1']
    const calls: string[] = []
    const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      calls.push(hostname)
      const address = hostname === 'allowed.test' ? answers.shift() ?? '10.1.2.3' : '127.0.0.1'
      if (options.all) callback(null, [{ address, family: 4 }])
      else callback(null, address, 4)
    }) as unknown as net.LookupFunction
    const seen: ProxyConnection[] = []
    const proxy = new NetworkProxy({ lookup })
    const lease = await proxy.open(rules(['local:allowed.test', 'local:*.many.test'], ['10.1.2.3', 'bad.many.test']), 'tcp', (c) => seen.push(c))
    try {
      const cred = lease.endpoint.credential
      const connect = (host: string) => talk(lease.endpoint.port, [`CONNECT ${host}:${web.port} HTTP/1.1\r\n${auth(cred)}\r\n`, (d) => d.includes('\r\n\r\n')]).then((b) => b.toString().slice(0, 12))
      expect(await connect('allowed.test')).toBe('HTTP/1.1 200')
      expect(await connect('allowed.test')).toBe('HTTP/1.1 403')
      expect(seen.at(-1)).toMatchObject({ host: 'allowed.test', allowed: false, reason: expect.stringContaining('10.1.2.3, which the network deny list holds') })
      // more hosts than a lease keeps verdicts for, then the first ones again
      for (let i = 0; i < 300; i += 30) await Promise.all(Array.from({ length: 30 }, (_, j) => connect(`h${i + j}.many.test`)))
      expect(await connect('bad.many.test')).toBe('HTTP/1.1 403')
      expect(await connect('other.test')).toBe('HTTP/1.1 403')
      expect(await connect('allowed.test')).toBe('HTTP/1.1 200')
      expect(await connect('bad.many.test')).toBe('HTTP/1.1 403')
      expect(calls.filter((h) => h === 'allowed.test')).toHaveLength(3)
      expect(seen.filter((c) => c.host.endsWith('.many.test') && c.allowed)).toHaveLength(300)
      expect(seen.filter((c) => c.host === 'bad.many.test' || c.host === 'other.test').map((c) => c.reason)).toEqual([
        'bad.many.test is not in the network allow list', 'other.test is not in the network allow list', 'bad.many.test is not in the network allow list',
      ])
    } finally {
      proxy.close()
    }
  })

  it('what counts as local: loopback, private, link-local, unique-local, unspecified and IPv4-mapped forms are refused; a public address is allowed; the address listed or local:NAME lets it through', async () => {
    const decide = (address: string, allow = ['allowed.test'], deny: string[] = []) => decideConnection(rules(allow, deny), 'allowed.test', resolver(address).lookup)
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', 'fc00::1', 'fd12::1', 'fe80::1', '0.0.0.0', '::', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::7f00:1', '64:ff9b::7f00:1', '100.64.0.1', '192.0.2.1', '224.0.0.1']) {
      expect(await decide(address), address).toMatchObject({ allowed: false, reason: expect.stringContaining(`allowed.test resolves to ${address}, a `) })
    }
    for (const address of ['172.15.0.1', '172.32.0.1', '93.184.216.34', '2606:2800:220:1::1']) {
      expect(await decide(address), address).toEqual({ allowed: true, address, family: net.isIP(address) })
    }
    expect(await decide('127.0.0.1', ['allowed.test', '127.0.0.1'])).toEqual({ allowed: true, address: '127.0.0.1', family: 4 })
    expect(await decide('10.1.2.3', ['local:*.test'])).toEqual({ allowed: true, address: '10.1.2.3', family: 4 })
    // deny wins: a denied address refuses the names leading to it, local: or not
    expect(await decide('10.1.2.3', ['local:allowed.test'], ['10.1.2.3'])).toMatchObject({ allowed: false, reason: expect.stringMatching(/deny list/) })
    expect(await decideConnection(rules(['allowed.test']), 'allowed.test', testLookupFailing)).toMatchObject({ allowed: false, reason: 'allowed.test does not resolve (ENOTFOUND)' })
    // local: is for names in allow: not an address, not in deny
    expect(() => resolveNetwork({ allow: ['local:127.0.0.1'] })).toThrow(/network\.allow\[0\] "local:127\.0\.0\.1" is not a host pattern/)
    expect(() => resolveNetwork({ allow: ['a.test'], deny: ['local:a.test'] })).toThrow(/network\.deny\[0\]/)
  })

  it('a connection without the call\'s credential is refused — 407 for HTTP, an authentication failure for SOCKS5 — recorded, and nothing is reached; with it, allowed', async () => {
    const target = await counter()
    const seen: ProxyConnection[] = []
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', (c) => seen.push(c))
    const other = await proxy.open(rules(['local:allowed.test']), 'tcp', () => {})
    try {
      const cred = lease.endpoint.credential
      expect(cred.username).toBe('dsh')
      expect(cred.password).toMatch(/^[A-Za-z0-9_-]{24}$/)
      expect(other.endpoint.credential.password).not.toBe(cred.password)
      const ask = (head: string) => talk(lease.endpoint.port, [`CONNECT allowed.test:${target.port} HTTP/1.1\r\n${head}\r\n`, (d) => d.includes('\r\n\r\n')])
      expect((await ask('')).toString()).toMatch(/^HTTP\/1\.1 407 [\s\S]*proxy-authenticate: Basic/i)
      expect((await ask(auth({ username: 'dsh', password: 'guess' }))).toString()).toMatch(/^HTTP\/1\.1 407 /)
      // another call's credential is no good here
      expect((await ask(auth(other.endpoint.credential))).toString()).toMatch(/^HTTP\/1\.1 407 /)
      const plain = await talk(lease.endpoint.port, [`GET http://allowed.test:${target.port}/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n`, (d) => d.includes('\r\n\r\n')])
      expect(plain.toString()).toMatch(/^HTTP\/1\.1 407 /)
      const noAuth = await talk(lease.endpoint.port, [Buffer.from([5, 1, 0]), (d) => d.length >= 2])
      expect([...noAuth]).toEqual([5, 255])
      const wrong = await talk(lease.endpoint.port, ...socks('allowed.test', target.port, { username: 'dsh', password: 'guess' }))
      expect([...wrong]).toEqual([5, 2, 1, 1])
      await controlConnection({ host: '127.0.0.1', port: target.port }, target.count, 0)
      expect(target.count()).toBe(1)
      expect(seen.map((c) => [c.host, c.allowed, c.reason])).toEqual([
        ['allowed.test', false, 'no proxy credential'],
        ['allowed.test', false, 'wrong proxy credential'],
        ['allowed.test', false, 'wrong proxy credential'],
        ['allowed.test', false, 'no proxy credential'],
        ['', false, 'no SOCKS5 credential offered'],
        ['', false, 'wrong SOCKS5 credential'],
      ])
      // with the credential: through, on both protocols
      expect((await ask(auth(cred))).toString()).toMatch(/^HTTP\/1\.1 200 /)
      const through = await talk(lease.endpoint.port, ...socks('allowed.test', target.port, cred))
      expect([...through.subarray(0, 6)]).toEqual([5, 2, 1, 0, 5, 0])
      // the first control, the two through the proxy, then this control
      await controlConnection({ host: '127.0.0.1', port: target.port }, target.count, 3)
      expect(target.count()).toBe(4)
    } finally {
      proxy.close()
      target.close()
    }
  })

  it('refusals for the credential are recorded up to a bound: a host process cannot fill the session log', async () => {
    const seen: ProxyConnection[] = []
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['local:allowed.test']), 'tcp', (c) => seen.push(c))
    try {
      for (let i = 0; i < MAX_RECORDED_UNAUTHORIZED + 20; i++) await talk(lease.endpoint.port, [Buffer.from([5, 1, 0]), (d) => d.length >= 2])
      expect(seen).toHaveLength(MAX_RECORDED_UNAUTHORIZED)
    } finally {
      proxy.close()
    }
  })

  it('a unix lease listens in a directory only its owner can enter, removed when it closes', async () => {
    const proxy = new NetworkProxy({ lookup: testLookup })
    const lease = await proxy.open(rules(['allowed.test']), 'unix', () => {})
    const dir = path.dirname(lease.endpoint.socket!)
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(lease.endpoint.socket!).isSocket()).toBe(true)
    lease.close()
    expect(fs.existsSync(dir)).toBe(false)
    proxy.close()
  })
})

describe('the sandbox service with host patterns', () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-net-service-')))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  async function service(config: Record<string, unknown> = {}) {
    const ctx = new Context()
    ctx.plugin(SandboxService, { workspace: dir, ...config })
    await ctx.start()
    return { ctx, sandbox: ctx.get('sandbox') as SandboxService }
  }

  it('a bad pattern in the config is INVALID_CONFIG naming sandbox.network.allow[i]', () => {
    expect(() => new SandboxService(new Context(), { network: { allow: ['ok.test', 'a b'] } })).toThrow(/sandbox config: sandbox\.network\.allow\[1\] "a b" is not a host pattern/)
  })

  it('hosts need the call to record connections for; a backend that cannot bridge the proxy refuses them', async () => {
    const { ctx, sandbox } = await service({ backends: [] })
    try {
      // a provider without networkProxy (think seatbelt, or a plugin's own)
      sandbox.provide({ name: 'plain', platforms: [process.platform], probe: async () => ({ available: true }), confine: (argv) => ({ argv: [...argv], enforcement: 'full', unenforced: [] }) })
      const session = new Session(path.join(dir, 'sessions'), { id: 'svc' })
      await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: dir, network: { allow: ['a.test'] } })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE', message: expect.stringMatching(/plain cannot confine the network by host/) })
      await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: dir, network: { allow: ['a.test'] } }, { session, callId: 'c1' })).rejects.toMatchObject({ code: 'SANDBOX_UNAVAILABLE' })
      session.close()
    } finally {
      await ctx.stop()
    }
  })

  it('without the call, a policy with hosts is INVALID_POLICY; danger-full-access says the hosts are not enforced', async () => {
    const { ctx, sandbox } = await service({ backends: [] })
    try {
      sandbox.provide({ name: 'bridging', networkProxy: 'tcp', platforms: [process.platform], probe: async () => ({ available: true }), confine: (argv) => ({ argv: [...argv], enforcement: 'full', unenforced: [] }) })
      await expect(sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: dir, network: { allow: ['a.test'] } })).rejects.toMatchObject({ code: 'INVALID_POLICY', message: expect.stringMatching(/needs the call/) })
      // with the call: a lease, its port in the environment, closed by cleanup
      const session = new Session(path.join(dir, 'sessions'), { id: 'svc2' })
      const confined = await sandbox.confine(['/bin/true'], { mode: 'read-only', workspace: dir, network: { allow: ['a.test'] } }, { session, callId: 'c2' })
      const [, password, port] = /^http:\/\/dsh:([^@]+)@127\.0\.0\.1:(\d+)$/.exec(confined.env.HTTP_PROXY)!
      expect(confined.env).toMatchObject({ HTTPS_PROXY: `http://dsh:${password}@127.0.0.1:${port}`, https_proxy: `http://dsh:${password}@127.0.0.1:${port}`, all_proxy: `socks5h://dsh:${password}@127.0.0.1:${port}` })
      // the credential reaches the launcher by its environment, never by the argv every host process can read
      expect(confined.spawnEnv).toEqual(Object.fromEntries(['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'].map((name) => [name, confined.env[name]])))
      expect(confined.argv.join(' ')).not.toContain(password)
      confined.cleanup()
      const refused = await new Promise<string>((resolve) => net.connect(Number(port), '127.0.0.1').on('error', (e: NodeJS.ErrnoException) => resolve(String(e.code))).on('connect', () => resolve('open')))
      expect(refused).toBe('ECONNREFUSED')
      session.close()
      const free = await sandbox.confine(['/bin/true'], { mode: 'danger-full-access', workspace: dir, network: { allow: ['a.test'] } })
      expect(free).toMatchObject({ backend: 'none', unenforced: ['network-hosts'] })
    } finally {
      await ctx.stop()
    }
  })
})
