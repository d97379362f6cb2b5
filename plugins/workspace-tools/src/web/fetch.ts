/**
 * One GET for web_fetch, hop by hop: before each connection — the first and
 * every redirect's — the sandbox decides the host under the network policy
 * (`sandbox.checkConnection`: the proxy's decision, recorded as
 * `sandbox/network`), and the socket goes to the address it checked (the
 * name is not resolved again). A redirect is followed by hand, so one that
 * leads off the allow list is refused like a first request would be. The
 * body is read up to a cap (after decompression), and everything observes
 * one signal: the fetch's deadline and the caller's abort.
 */
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { pinnedLookup, type Decision } from '@dsh/sandbox'

/** Decide a connection to host:port (recorded by the one who decides). */
export type ConnectionGate = (host: string, port: number) => Promise<Decision>

export interface FetchLimits {
  /** bytes of body kept (after decompression); the rest is not read */
  maxBytes: number
  /** redirects followed before giving up */
  maxRedirects: number
}

export type FetchOutcome =
  | { kind: 'refused'; url: URL; decision: Extract<Decision, { allowed: false }>; redirects: string[] }
  | { kind: 'bad-redirect'; url: URL; reason: string; redirects: string[] }
  | { kind: 'response'; url: URL; status: number; statusText: string; headers: IncomingMessage['headers']; redirects: string[]; read(accept: boolean): Promise<Body> }

export interface Body {
  bytes: Buffer
  /** the body had more than maxBytes */
  truncated: boolean
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const HEADERS = {
  'user-agent': 'dsh-web-fetch/0.1',
  accept: 'text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1',
  'accept-encoding': 'gzip, deflate, br',
}

const defaultPort = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80)

function request(url: URL, decision: Extract<Decision, { allowed: true }>, signal: AbortSignal): Promise<IncomingMessage> {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  const options = {
    host: hostname,
    port: defaultPort(url),
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: HEADERS,
    // Why pinned: the socket goes to the address the sandbox checked and recorded, never to a second answer for the name
    lookup: pinnedLookup(decision.address, decision.family),
    agent: false,
    signal,
    ...(url.protocol === 'https:' && !isIP(hostname) ? { servername: hostname } : {}),
  }
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(options, resolve)
    req.once('error', reject)
    req.end()
  })
}

/** The body's bytes as the server meant them: decoded from its content-encoding, or an error naming one we cannot read. */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding === 'identity' || encoding === '') return response
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined
  if (!decoder) {
    response.destroy()
    throw new Error(`the response's content-encoding ${JSON.stringify(encoding)} is not one web_fetch reads (gzip, deflate, br)`)
  }
  response.once('error', (error) => decoder.destroy(error))
  return response.pipe(decoder)
}

/** Read up to `max` bytes of the (decoded) body; past it the response is cut, and a compressed bomb stops at the cap too. */
async function readCapped(response: IncomingMessage, max: number): Promise<Body> {
  const stream = decoded(response)
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = max - size
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room))
        size = max
        truncated = true
        break
      }
      chunks.push(chunk)
      size += chunk.length
    }
  } finally {
    response.destroy()
    if (stream !== response) stream.destroy()
  }
  return { bytes: Buffer.concat(chunks, size), truncated }
}

/**
 * GET `start`, following redirects under the gate. Resolves with the final
 * response (its body not yet read: `read(true)` reads it capped,
 * `read(false)` drops it) or with the refusal; rejects when the signal fires
 * or the connection fails.
 */
export async function fetchUrl(start: URL, gate: ConnectionGate, limits: FetchLimits, signal: AbortSignal): Promise<FetchOutcome> {
  const redirects: string[] = []
  let url = start
  for (;;) {
    const decision = await gate(url.hostname, defaultPort(url))
    signal.throwIfAborted()
    if (!decision.allowed) return { kind: 'refused', url, decision, redirects }
    const response = await request(url, decision, signal)
    const location = response.headers.location
    if (REDIRECTS.has(response.statusCode ?? 0) && location) {
      response.resume()
      response.destroy()
      let next: URL
      try {
        next = new URL(location, url)
      } catch {
        return { kind: 'bad-redirect', url, reason: `${url.href} redirects to ${JSON.stringify(location)}, which is not a URL`, redirects }
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') return { kind: 'bad-redirect', url, reason: `${url.href} redirects to ${next.protocol} (web_fetch follows http and https only)`, redirects }
      if (redirects.length >= limits.maxRedirects) return { kind: 'bad-redirect', url, reason: `more than ${limits.maxRedirects} redirects (workspace-tools webFetchMaxRedirects)`, redirects }
      redirects.push(next.href)
      url = next
      continue
    }
    return {
      kind: 'response', url, status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: response.headers, redirects,
      read: async (accept) => {
        if (accept) return readCapped(response, limits.maxBytes)
        response.destroy()
        return { bytes: Buffer.alloc(0), truncated: false }
      },
    }
  }
}
