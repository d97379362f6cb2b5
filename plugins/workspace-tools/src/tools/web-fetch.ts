/** web_fetch {url, prompt?} with Claude Code's WebFetch arguments, so its rules and hooks apply; every connection is the sandbox's decision (docs/architecture.md, workspace-tools). */
import type { Context } from 'cordis'
import { KernelError } from '@dsh/kernel'
import type { ToolCall, ToolDefinition } from '@dsh/tools'
import type { Config } from '../config.js'
import { decodeText, kindOf, mediaType, sniff } from '../web/content.js'
import type { FetchOutcome } from '../web/fetch.js'
import type { MarkdownConverter } from '../web/markdown.js'

// Why at the first fetch: node:http, node:https and node:zlib cost a kernel that never fetches ~4 MB of RSS
let fetcher: Promise<typeof import('../web/fetch.js')> | undefined
const loadFetcher = () => (fetcher ??= import('../web/fetch.js'))

interface Args {
  url: string
  prompt?: string
}

const MAX_URL_LENGTH = 8192

function parseUrl(input: string): URL {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new Error(`url ${JSON.stringify(input.slice(0, 200))} is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`url must be http or https (got ${url.protocol})`)
  return url
}

/** The deadline and the caller's abort as one signal; `clear` ends the timer. */
function deadline(call: ToolCall, ms: number): { signal: AbortSignal; expired: () => boolean; clear: () => void } {
  const timer = new AbortController()
  const handle = setTimeout(() => timer.abort(new KernelError('TIMEOUT', `the fetch reached its deadline (workspace-tools webFetchTimeoutMs, ${ms} ms)`)), ms)
  return { signal: AbortSignal.any([call.signal, timer.signal]), expired: () => timer.signal.aborted, clear: () => clearTimeout(handle) }
}

function refusal(outcome: Extract<FetchOutcome, { kind: 'refused' | 'bad-redirect' }>, start: URL): KernelError {
  const via = outcome.redirects.length ? ` (reached by redirect from ${start.href})` : ''
  if (outcome.kind === 'bad-redirect') return new KernelError('DENIED', outcome.reason)
  const { reason, remedy } = outcome.decision
  return new KernelError('DENIED', `the sandbox's network policy refuses ${outcome.url.host}${via}: ${reason}.${remedy ? ` ${remedy}` : ''}`)
}

function header(outcome: Extract<FetchOutcome, { kind: 'response' }>, media: string, size: string): string {
  const lines = [`URL: ${outcome.url.href}`]
  if (outcome.redirects.length) lines.push(`Redirected ${outcome.redirects.length} time(s) on the way`)
  lines.push(`Status: ${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''}`, `Content-Type: ${media || '(none)'}; ${size}`)
  return lines.join('\n')
}

/** Cut `text` to at most `max` UTF-8 bytes, on a character boundary. */
function capText(text: string, max: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8')
  if (bytes.length <= max) return { text, cut: false }
  return { text: new TextDecoder().decode(bytes.subarray(0, max)).replace(/\uFFFD$/, ''), cut: true }
}

export function webFetchTool(ctx: Context, config: Config, converter: MarkdownConverter): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  return {
    name: 'web_fetch',
    title: 'Fetch web page',
    description: 'Fetch a URL (GET, http or https) under the sandbox\'s network policy and return the page as Markdown (HTML), as text, or a one-line summary for binary content. Redirects are followed only within the allowed hosts.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', description: 'The URL to fetch (http or https)' },
        prompt: { type: 'string', maxLength: MAX_URL_LENGTH, description: 'What you are looking for in the page; recorded with the call (the page itself is returned, not an answer)' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    // a GET reads the outside world and changes nothing here
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    concurrency: 'parallel',
    prompt: 'web_fetch: reads a web page (GET) as Markdown, through the sandbox\'s network policy: with the network off every fetch is refused, with an allow list only the listed hosts (and redirects among them) are reached. Each fetch is recorded.',
    async execute(args, call) {
      const start = parseUrl(args.url)
      const limits = { maxBytes: config.webFetchMaxBytes, maxRedirects: config.webFetchMaxRedirects }
      const gate = (host: string, port: number) => sandbox.checkConnection(host, port, { session: call.session, callId: call.callId })
      const time = deadline(call, config.webFetchTimeoutMs)
      try {
        const { fetchUrl } = await loadFetcher()
        const outcome = await fetchUrl(start, gate, limits, time.signal)
        if (outcome.kind !== 'response') {
          call.record({ fetch: { url: start.href, refused: outcome.url.href, redirects: outcome.redirects } })
          throw refusal(outcome, start)
        }
        const contentType = typeof outcome.headers['content-type'] === 'string' ? outcome.headers['content-type'] : undefined
        const media = mediaType(contentType)
        const declared = kindOf(media)
        const body = await outcome.read(declared !== 'binary')
        const kind = declared === 'unknown' ? sniff(body.bytes) : declared
        call.record({ fetch: { url: start.href, final: outcome.url.href, status: outcome.status, contentType: media, bytes: body.bytes.length, truncated: body.truncated, redirects: outcome.redirects, kind } })
        if (kind === 'binary') {
          const length = outcome.headers['content-length']
          return `${header(outcome, media, length ? `${length} bytes` : 'size not given')}\n\n[binary content: web_fetch returns HTML pages and text only; nothing of the body was read]`
        }
        const text = decodeText(body.bytes, contentType)
        const page = kind === 'html' ? await converter.convert(text, time.signal) : text
        const capped = capText(page, config.webFetchMaxBytes)
        const notes = [
          body.truncated && `[the body was cut at ${config.webFetchMaxBytes} bytes (workspace-tools webFetchMaxBytes); the rest was not fetched]`,
          capped.cut && `[the text was cut at ${config.webFetchMaxBytes} bytes (workspace-tools webFetchMaxBytes)]`,
        ].filter(Boolean)
        return `${header(outcome, media, `${body.bytes.length} bytes${kind === 'html' ? ', as Markdown' : ''}`)}\n\n${capped.text}${notes.length ? `\n\n${notes.join('\n')}` : ''}`
      } catch (error) {
        // Why the deadline's own error: it names the setting, where an aborted socket says only "aborted"
        if (time.expired() && !call.signal.aborted) throw time.signal.reason
        if (error instanceof KernelError || call.signal.aborted) throw error
        // a connection, TLS or HTTP failure: said with the URL it happened on
        throw new Error(`${start.href}: ${(error as Error)?.message ?? String(error)}`, { cause: error })
      } finally {
        time.clear()
      }
    },
  }
}
