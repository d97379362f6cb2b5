/**
 * The `fetch` a Streamable HTTP server's transport sends with. Each request
 * is decided first by the sandbox's network policy (`checkConnection`: the
 * host judged, a name resolved once, a local answer refused unless listed,
 * the decision recorded), then sent to the address that was decided: the
 * name is never resolved again, so a second DNS answer (a rebinding) cannot
 * take the request to another address than the one checked and recorded.
 * Connections are kept alive per decided address; a request whose decision
 * names another address gets a connection of its own. A redirect is an
 * error: it would lead to a host the policy never saw.
 */
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { Readable } from 'node:stream'
import { pinnedLookup, type Decision } from '@dsh/sandbox'

export type Decide = (host: string, port: number) => Promise<Decision>

export interface PinnedFetch {
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>
  /** end the kept-alive connections */
  close(): void
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
const NO_BODY = new Set([204, 205, 304])

function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  throw new TypeError('mcp-servers: an HTTP request body that is not a string or bytes')
}

export function pinnedFetch(decide: Decide): PinnedFetch {
  const agents = new Map<string, http.Agent>()
  const agentFor = (url: URL, address: string): http.Agent => {
    const key = `${url.protocol}//${url.host}@${address}`
    let agent = agents.get(key)
    if (!agent) {
      agent = url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true })
      agents.set(key, agent)
    }
    return agent
  }

  const send = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`mcp-servers: ${url.protocol} is not http: or https:`)
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    const decision = await decide(host, port)
    if (!decision.allowed) throw new Error(`the sandbox's network policy refused ${host}:${port}: ${decision.reason}${decision.remedy ? ` (${decision.remedy})` : ''}`)
    const signal = init.signal ?? undefined
    signal?.throwIfAborted()
    const body = bodyOf(init.body)
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request({
        host, port, path: `${url.pathname}${url.search}`, method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        agent: agentFor(url, decision.address),
        // Why pinned: the socket goes to the address the sandbox decided and recorded
        lookup: pinnedLookup(decision.address, decision.family),
        ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
        ...(signal ? { signal } : {}),
      }, resolve)
      request.once('error', reject)
      request.end(body)
    })
    const status = response.statusCode ?? 0
    if (REDIRECTS.has(status)) {
      response.destroy()
      throw new TypeError(`${host}:${port} answered ${status}, a redirect${response.headers.location ? ` to ${response.headers.location}` : ''}; redirects are refused (the policy decided this host only)`)
    }
    // the caller's abort also ends a response being read (an SSE stream, say)
    const onAbort = () => response.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'))
    signal?.addEventListener('abort', onAbort, { once: true })
    response.once('close', () => signal?.removeEventListener('abort', onAbort))
    const headers = new Headers()
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
    }
    const empty = NO_BODY.has(status) || init.method === 'HEAD'
    if (empty) response.resume()
    return new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), { status, statusText: response.statusMessage ?? '', headers })
  }

  return {
    fetch: send,
    close() {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}
