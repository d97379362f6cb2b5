/**
 * What web_fetch does with a response by its type: an HTML page becomes
 * Markdown, text passes as it is (decoded from its charset), anything else
 * is binary, summarised in one line and never read. A response without a
 * type is sniffed: NUL bytes mean binary, a leading tag means HTML.
 */

export type Kind = 'html' | 'text' | 'binary' | 'unknown'

const TEXT_TYPES = new Set([
  'application/json', 'application/ld+json', 'application/xml', 'application/javascript', 'application/ecmascript',
  'application/x-javascript', 'application/yaml', 'application/x-yaml', 'application/toml', 'application/x-sh',
  'application/sql', 'application/graphql', 'application/x-ndjson', 'application/rss+xml', 'application/atom+xml',
])

/** The media type of a Content-Type header, lower-case, without its parameters ('' when there is none). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase()
}

/** How a response of this media type is read. */
export function kindOf(media: string): Kind {
  if (!media) return 'unknown'
  if (media === 'text/html' || media === 'application/xhtml+xml') return 'html'
  if (media.startsWith('text/') || TEXT_TYPES.has(media) || media.endsWith('+json') || media.endsWith('+xml')) return 'text'
  return 'binary'
}

/** A response with no type, judged by its first bytes. */
export function sniff(bytes: Buffer): Exclude<Kind, 'unknown'> {
  const head = bytes.subarray(0, 1024)
  if (head.includes(0)) return 'binary'
  return /^\s*<(!doctype\s+html|html|head|body)\b/i.test(head.toString('latin1')) ? 'html' : 'text'
}

/** The body as text, in the charset its Content-Type names (UTF-8 when it names none, or one this runtime lacks). */
export function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes)
  } catch {
    return new TextDecoder('utf-8').decode(bytes)
  }
}
