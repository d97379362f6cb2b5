// Shared pieces of the network-by-host specs: a resolver the tests control
// (the proxy's `lookup`), a loopback HTTP server that counts what reaches it,
// and a way to read a session's sandbox/network events.
import http from 'node:http'
import type { LookupFunction } from 'node:net'
import type { Session } from '@dsh/kernel'

/** The only names the tests' resolver knows; everything else is ENOTFOUND. */
export const TEST_HOSTS: Record<string, string> = {
  'allowed.test': '127.0.0.1',
  'api.allowed.test': '127.0.0.1',
  'denied.test': '127.0.0.1',
  'blocked.allowed.test': '127.0.0.1',
}

export const testLookup: LookupFunction = (hostname, options, callback) => {
  const address = TEST_HOSTS[hostname]
  if (!address) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4)
    return
  }
  // Why both shapes: net.connect asks for every address (all: true) when it races address families
  if (options.all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family: 4 }])
  else callback(null, address, 4)
}

export interface Web {
  port: number
  /** the Host header of every request that reached the server */
  hits: string[]
  close(): Promise<void>
}

/** An HTTP server on 127.0.0.1 answering `hello <host>`. */
export async function startWeb(): Promise<Web> {
  const hits: string[] = []
  const server = http.createServer((req, res) => {
    hits.push(String(req.headers.host))
    res.end(`hello ${req.headers.host}`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    hits,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** The sandbox/network events of one call, in order. */
export function networkEvents(session: Session, callId: string): Array<{ host: string; port: number; allowed: boolean }> {
  return session.events()
    .filter((e) => e.type === 'sandbox/network' && (e.data as { callId: string }).callId === callId)
    .map((e) => {
      const { host, port, allowed } = e.data as { host: string; port: number; allowed: boolean }
      return { host, port, allowed }
    })
}
