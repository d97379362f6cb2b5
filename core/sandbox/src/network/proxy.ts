/**
 * The sandbox's network proxy: one per sandbox service (so one per kernel),
 * started lazily by the first call whose policy lists hosts, closed with
 * the service. Each such call opens a lease — its own listener, a TCP port
 * on 127.0.0.1 (Landlock) or a unix socket (bwrap's network namespace),
 * carrying that call's rules — and closes it when the command is gone.
 *
 * One listener speaks both protocols the command's tools use: a first byte
 * of 5 is SOCKS5 (@pondwader/socks5-server), anything else HTTP (proxy-chain:
 * CONNECT tunnels and absolute-URI requests). Both ask the lease before
 * connecting; the lease matches the host against the rules and records the
 * attempt, and a record that cannot be written refuses the connection. The
 * proxy resolves names itself (through `lookup`, which tests replace), so
 * the command never needs DNS. See docs/decisions/2026-12-01-network-proxy.md.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type LookupFunction, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostAllowed, type ResolvedNetworkRules } from './patterns.js'

/** One connection the command asked for, as `sandbox/network` records it. */
export interface ProxyConnection {
  host: string
  port: number
  allowed: boolean
}

/** Records an attempt; throwing refuses the connection (a record that cannot be written is no allow). */
export type ConnectionRecorder = (connection: ProxyConnection) => void

/** How the command reaches its lease: a port on 127.0.0.1, or a unix socket the backend bridges in. */
export type ProxyKind = 'tcp' | 'unix'

/** Where the command connects: `port` on its 127.0.0.1; for `unix`, the socket the backend relays that port to. */
export interface ProxyEndpoint {
  readonly port: number
  readonly socket?: string
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

class Lease implements ProxyLease {
  endpoint!: ProxyEndpoint
  readonly sockets = new Set<Socket>()
  closed = false
  dir?: string

  constructor(readonly server: Server, private rules: ResolvedNetworkRules, private record: ConnectionRecorder) {}

  /** May this connection go through? Asked once per CONNECT, SOCKS request and HTTP request. */
  decide(host: string, port: number): boolean {
    if (this.closed) return false
    const allowed = hostAllowed(this.rules, host)
    try {
      this.record({ host, port, allowed })
    } catch {
      return false
    }
    return allowed
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
  private closed = false

  constructor(private options: ProxyOptions = {}) {}

  /** A listener for one call under `rules`; `record` sees every connection it is asked for. */
  async open(rules: ResolvedNetworkRules, kind: ProxyKind, record: ConnectionRecorder): Promise<ProxyLease> {
    if (this.closed) throw new Error('the network proxy is closed')
    const engines = await (this.engines ??= this.load())
    const server = createServer({ noDelay: true }, (socket) => this.accept(lease, socket, engines))
    const lease = new Lease(server, rules, record)
    this.leases.add(lease)
    server.once('close', () => this.leases.delete(lease))
    try {
      if (kind === 'tcp') {
        await listen(server, { host: '127.0.0.1', port: 0 })
        lease.endpoint = Object.freeze({ port: (server.address() as { port: number }).port })
      } else {
        // Why a private directory: nobody but us may connect to or replace the socket before it is bound in
        lease.dir = mkdtempSync(join(tmpdir(), 'dsh-proxy-'))
        const socket = join(lease.dir, 'proxy.sock')
        await listen(server, { path: socket })
        lease.endpoint = Object.freeze({ port: BRIDGED_PROXY_PORT, socket })
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
    const lookup = this.options.lookup
    const http = new HttpProxy({
      port: 0,
      prepareRequestFunction: ({ request, hostname, port }) => {
        const lease = this.leaseOf(request.socket)
        if (!lease?.decide(hostname, port)) throw new RequestError(`dsh sandbox: ${hostname}:${port} is not in the network allow list`, 403)
        // the tunnel is up: no handshake deadline any more
        request.socket.setTimeout(0)
        return lookup ? { dnsLookup: lookup as never } : {}
      },
    })
    const socks = new Socks5Server()
    socks.setRulesetValidator((connection) => {
      const lease = this.leaseOf(connection.socket)
      return lease?.decide(connection.destAddress, connection.destPort) ?? false
    })
    socks.setConnectionHandler((connection, sendStatus) => {
      const client = connection.socket as Socket
      client.setTimeout(0)
      const upstream = createConnection({ host: connection.destAddress, port: connection.destPort, noDelay: true, ...(lookup ? { lookup } : {}) })
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

function listen(server: Server, where: { host: string; port: number } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(where, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
