/** The sandbox's one network proxy, a listener per call with its own rules and credential, since a command must reach only the hosts its policy lists (docs/decisions/2026-12-01-network-proxy.md). */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type LookupFunction, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkListed } from './check.js'
import { pinnedLookup, type Decision } from './decide.js'
import { judgeHost, type HostVerdict, type ResolvedNetworkRules } from './patterns.js'
import type { ConnectionRecorder } from './connection.js'

export type { ConnectionRecorder, ProxyConnection } from './connection.js'

/** The user name of every lease's credential (the password is the lease's own). */
export const PROXY_USER = 'dsh'
/** Refusals for a missing or wrong credential recorded per lease; past it they are refused unrecorded (a host process could fill the log). */
export const MAX_RECORDED_UNAUTHORIZED = 100

/** Hosts whose pattern verdict a lease keeps (past it the kept ones are dropped: a command naming endless hosts costs a judgement each, not memory). */
const MAX_KEPT_VERDICTS = 256


/** How the command reaches its lease: a port on 127.0.0.1, or a unix socket the backend bridges in. */
export type ProxyKind = 'tcp' | 'unix'

/** Where the command connects: `port` on its 127.0.0.1; for `unix`, the socket the backend relays that port to. */
export interface ProxyEndpoint {
  readonly port: number
  readonly socket?: string
  /** the lease's credential, which the proxy URLs set inside carry */
  readonly credential: { readonly username: string; readonly password: string }
}

/** The port a bwrap command's relay listens on inside its own network namespace. */
export const BRIDGED_PROXY_PORT = 3128

export interface ProxyOptions {
  /** how the proxy resolves names (default: node's dns.lookup) */
  lookup?: LookupFunction
  /** how long a connection may take to say what it wants (default 10 s) */
  handshakeTimeoutMs?: number
}

export interface ProxyLease {
  readonly endpoint: ProxyEndpoint
  /** Stop listening and cut every connection of this lease. */
  close(): void
}

interface Engines {
  http: { server: Server & { emit(event: 'connection', socket: Socket): boolean } }
  socks: { _handleConnection(socket: Socket): unknown }
}

function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

class Lease implements ProxyLease {
  endpoint!: ProxyEndpoint
  readonly credential = Object.freeze({ username: PROXY_USER, password: randomBytes(18).toString('base64url') })
  readonly sockets = new Set<Socket>()
  closed = false
  dir?: string
  private unauthorized = 0
  /** the patterns' verdict per host asked for (the rules are the lease's, fixed): a command's repeated connections to one host read its patterns once */
  private verdicts = new Map<string, HostVerdict>()

  constructor(readonly server: Server, private rules: ResolvedNetworkRules, private record: ConnectionRecorder, private lookup?: LookupFunction) {}

  /** Does a client present this lease's credential? */
  authorized(username: unknown, password: unknown): boolean {
    return username === this.credential.username && sameSecret(password, this.credential.password)
  }

  /** Record a connection refused for its credential (the first MAX_RECORDED_UNAUTHORIZED of them). */
  refuseUnauthorized(host: string, port: number, reason: string): void {
    if (this.closed || this.unauthorized++ >= MAX_RECORDED_UNAUTHORIZED) return
    try {
      this.record({ host, port, allowed: false, reason })
    } catch {}
  }

  /** May this connection go through, and to which address? Asked once per CONNECT, SOCKS request and HTTP request. */
  async decide(host: string, port: number): Promise<Decision> {
    if (this.closed) return { allowed: false, reason: 'the call has ended' }
    let verdict = this.verdicts.get(host)
    if (!verdict) {
      if (this.verdicts.size >= MAX_KEPT_VERDICTS) this.verdicts.clear()
      this.verdicts.set(host, (verdict = judgeHost(this.rules, host)))
    }
    // Why still a lookup each time: where a name leads is checked afresh for every connection
    const record: ConnectionRecorder = (connection) => {
      if (this.closed) throw new Error('the call has ended')
      this.record(connection)
    }
    const decision = await checkListed(this.rules, host, port, record, this.lookup, verdict)
    return this.closed ? { allowed: false, reason: 'the call has ended' } : decision
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.server.close()
    for (const socket of this.sockets) socket.destroy()
    if (this.dir) rmSync(this.dir, { recursive: true, force: true })
  }
}

export class NetworkProxy {
  private engines?: Promise<Engines>
  private leases = new Set<Lease>()
  private owners = new WeakMap<Socket, Lease>()
  /** what the ruleset validator decided for a SOCKS5 connection, for its connection handler */
  private checked = new WeakMap<object, Decision>()
  private closed = false

  constructor(private options: ProxyOptions = {}) {}

  /** A listener for one call under `rules`; `record` sees every connection it is asked for. */
  async open(rules: ResolvedNetworkRules, kind: ProxyKind, record: ConnectionRecorder): Promise<ProxyLease> {
    if (this.closed) throw new Error('the network proxy is closed')
    const engines = await (this.engines ??= this.load())
    const server = createServer({ noDelay: true }, (socket) => this.accept(lease, socket, engines))
    const lease = new Lease(server, rules, record, this.options.lookup)
    this.leases.add(lease)
    server.once('close', () => this.leases.delete(lease))
    try {
      if (kind === 'tcp') {
        await listen(server, { host: '127.0.0.1', port: 0 })
        lease.endpoint = Object.freeze({ port: (server.address() as { port: number }).port, credential: lease.credential })
      } else {
        // Why a private directory: nobody but us may connect to or replace the socket before it is bound in
        lease.dir = mkdtempSync(join(tmpdir(), 'dsh-proxy-'))
        const socket = join(lease.dir, 'proxy.sock')
        await listen(server, { path: socket })
        lease.endpoint = Object.freeze({ port: BRIDGED_PROXY_PORT, socket, credential: lease.credential })
      }
    } catch (error) {
      lease.close()
      throw error
    }
    return lease
  }

  /** Close every lease; later `open`s fail. */
  close(): void {
    this.closed = true
    for (const lease of [...this.leases]) lease.close()
  }

  private accept(lease: Lease, socket: Socket, engines: Engines): void {
    if (lease.closed) return void socket.destroy()
    lease.sockets.add(socket)
    socket.once('close', () => lease.sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    socket.setTimeout(this.options.handshakeTimeoutMs ?? 10_000, () => socket.destroy())
    socket.once('data', (chunk: Buffer) => {
      socket.pause()
      socket.unshift(chunk)
      this.owners.set(socket, lease)
      if (chunk[0] === 5) {
        // Why here: a greeting without username/password is answered "no acceptable method" by the engine, which tells us nothing
        if (chunk.length >= 2 + chunk[1] && !chunk.subarray(2, 2 + chunk[1]).includes(2)) lease.refuseUnauthorized('', 0, 'no SOCKS5 credential offered')
        engines.socks._handleConnection(socket)
      } else {
        // Why: proxy-chain drops a socket without a remote address, which a unix socket's peer never has
        if (!socket.remoteAddress) Object.defineProperty(socket, 'remoteAddress', { value: 'sandbox', configurable: true })
        engines.http.server.emit('connection', socket)
        socket.resume()
      }
    })
  }

  private leaseOf(socket: unknown): Lease | undefined {
    return socket && typeof socket === 'object' ? this.owners.get(socket as Socket) : undefined
  }

  /** Both protocol engines, loaded on first use (proxy-chain is ~40 modules a CLI that never proxies should not load). */
  private async load(): Promise<Engines> {
    const [{ Server: HttpProxy, RequestError }, { Socks5Server }] = await Promise.all([import('proxy-chain'), import('@pondwader/socks5-server')])
    // Why: proxy-chain answers an error with its status only when error.name is 'RequestError', which
    // its constructor copies from the class's name; a bundler that renames the class (the CLI bundle
    // makes it _RequestError) turns every 403 and 407 into "500 Internal error in proxy server"
    if (RequestError.name !== 'RequestError') Object.defineProperty(RequestError, 'name', { value: 'RequestError', configurable: true })
    const http = new HttpProxy({
      port: 0,
      prepareRequestFunction: async ({ request, hostname, port, username, password }) => {
        const lease = this.leaseOf(request.socket)
        if (!lease) throw new RequestError('dsh sandbox: this connection belongs to no call', 403)
        if (!lease.authorized(username, password)) {
          lease.refuseUnauthorized(hostname, port, username || password ? 'wrong proxy credential' : 'no proxy credential')
          return { requestAuthentication: true, failMsg: 'dsh sandbox: this proxy serves one call and takes its credential only (the proxy URLs set inside the sandbox)' }
        }
        const decision = await lease.decide(hostname, port)
        if (!decision.allowed) throw new RequestError(refusalBody(hostname, port, decision), 403)
        // the tunnel is up: no handshake deadline any more
        request.socket.setTimeout(0)
        // Why pinned: the connection goes to the address checked, never to a second answer for the name
        return { dnsLookup: pinnedLookup(decision.address, decision.family) as never }
      },
    })
    const socks = new Socks5Server()
    socks.setAuthHandler((connection) => {
      const lease = this.leaseOf(connection.socket)
      if (lease?.authorized(connection.username, connection.password)) return true
      lease?.refuseUnauthorized('', 0, 'wrong SOCKS5 credential')
      return false
    })
    socks.setRulesetValidator(async (connection) => {
      const lease = this.leaseOf(connection.socket)
      if (!lease) return false
      const decision = await lease.decide(connection.destAddress, connection.destPort)
      if (decision.allowed) this.checked.set(connection, decision)
      return decision.allowed
    })
    socks.setConnectionHandler((connection, sendStatus) => {
      const client = connection.socket as Socket
      client.setTimeout(0)
      const decision = this.checked.get(connection)
      if (!decision?.allowed) {
        sendStatus('CONNECTION_NOT_ALLOWED')
        return void client.destroy()
      }
      const upstream = createConnection({ host: decision.address, family: decision.family, port: connection.destPort, noDelay: true })
      let open = false
      upstream.once('connect', () => {
        open = true
        sendStatus('REQUEST_GRANTED')
        client.pipe(upstream).pipe(client)
      })
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (!open) sendStatus(error.code === 'ECONNREFUSED' ? 'CONNECTION_REFUSED' : error.code === 'ENOTFOUND' ? 'HOST_UNREACHABLE' : 'GENERAL_FAILURE')
        client.destroy()
      })
      client.on('close', () => upstream.destroy())
    })
    return { http: http as unknown as Engines['http'], socks: socks as unknown as Engines['socks'] }
  }
}

/** The 403's body: what was refused, why, and what to change (the remedy) — read by a person looking at curl's output. */
function refusalBody(host: string, port: number, decision: Extract<Decision, { allowed: false }>): string {
  return `dsh sandbox: the connection to ${host}:${port} is not allowed: ${decision.reason}.${decision.remedy ? ` ${decision.remedy}` : ''}\n`
}

function listen(server: Server, where: { host: string; port: number } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(where, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
