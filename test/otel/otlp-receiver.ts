/**
 * A local OTLP/HTTP receiver for the tests: an HTTP server on the loopback
 * address that takes `POST /v1/traces` with a JSON body, as a collector's HTTP
 * receiver does, and keeps the spans it was sent, flattened.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } }
interface KeyValue { key: string; value: AnyValue }

export interface ReceivedSpan {
  name: string
  kind: number
  traceId: string
  spanId: string
  parentSpanId?: string
  attributes: Record<string, unknown>
  status: { code?: number; message?: string }
  events: Array<{ name: string; attributes: Record<string, unknown> }>
  resource: Record<string, unknown>
  scope: string
}

function value(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue
  if (v.intValue !== undefined) return Number(v.intValue)
  if (v.doubleValue !== undefined) return v.doubleValue
  if (v.boolValue !== undefined) return v.boolValue
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(value)
  return undefined
}

const record = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, value(kv.value)]))

export interface Receiver {
  url: string
  spans: ReceivedSpan[]
  /** content types of the requests received */
  contentTypes: string[]
  close(): Promise<void>
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = []
  const contentTypes: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      contentTypes.push(String(req.headers['content-type']))
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      for (const rs of body.resourceSpans ?? []) {
        const resource = record(rs.resource?.attributes)
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              name: s.name,
              kind: s.kind,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              attributes: record(s.attributes),
              status: s.status ?? {},
              events: (s.events ?? []).map((e: { name: string; attributes?: KeyValue[] }) => ({ name: e.name, attributes: record(e.attributes) })),
              resource,
              scope: ss.scope?.name,
            })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
