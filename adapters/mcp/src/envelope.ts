/** One client line as a JSON-RPC 2.0 message or the error that answers it, since the SDK's transport drops a bad line and leaves its request unanswered (the codes: docs/architecture.md, MCP server). */
import {
  ErrorCode,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResponseSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'
import { QUOTE_LIMIT, quoteInput } from '@dsh/kernel'

export type RequestId = string | number

export interface Refusal {
  /** the request id the error answers (`null`: none could be read) */
  id: RequestId | null
  code: number
  message: string
  /** a message that is not answered (a notification or a response): only reported */
  silent?: boolean
}

export type Checked = { ok: true; message: JSONRPCMessage; id?: RequestId } | { ok: false; refusal: Refusal }

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params'])
const RESPONSE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'result', 'error'])

const isId = (value: unknown): value is RequestId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

function refuse(id: RequestId | null, code: number, message: string, silent = false): Checked {
  return { ok: false, refusal: { id, code, message, ...(silent ? { silent } : {}) } }
}

/** A line's text as a message (`ok`), or the refusal it gets. */
export function checkLine(line: string): Checked {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    // V8's message quotes the text; the client has the text, the message only needs the place
    const detail = String((error as Error).message).replace(/,? ".*$/s, '').slice(0, QUOTE_LIMIT)
    return refuse(null, ErrorCode.ParseError, `Parse error: the message is not JSON (${detail})`)
  }
  return checkMessage(value)
}

export function checkMessage(value: unknown): Checked {
  // batches were removed from MCP (2025-06-18); one refusal for the whole array
  if (Array.isArray(value)) return refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: batches (JSON arrays) are not supported; send one message a line')
  if (!isObject(value)) return refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object')
  const hasId = Object.hasOwn(value, 'id')
  const id = hasId && isId(value.id) ? value.id : null
  const hasMethod = Object.hasOwn(value, 'method')
  const isResponse = !hasMethod && (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error'))
  // only a request is answered; a malformed notification or response is reported, never answered
  const silent = isResponse || (hasMethod && !hasId)
  if (value.jsonrpc !== '2.0') return refuse(id, ErrorCode.InvalidRequest, 'Invalid Request: "jsonrpc" must be "2.0"', silent)
  if (hasId && id === null) return refuse(null, ErrorCode.InvalidRequest, 'Invalid Request: "id" must be a string or a number', silent)
  if (isResponse) {
    const extra = unknownKey(value, RESPONSE_KEYS)
    if (extra !== undefined) return refuse(id, ErrorCode.InvalidRequest, `Invalid Request: a response has no member ${quoteInput(extra)}`, true)
    const parsed = JSONRPCResponseSchema.safeParse(value)
    if (!parsed.success) return refuse(id, ErrorCode.InvalidRequest, `Invalid Request: a malformed response: ${firstIssue(parsed.error)}`, true)
    return { ok: true, message: parsed.data }
  }
  if (!hasMethod) return refuse(id, ErrorCode.InvalidRequest, 'Invalid Request: no "method"', silent)
  if (typeof value.method !== 'string') return refuse(id, ErrorCode.InvalidRequest, 'Invalid Request: "method" must be a string', silent)
  const extra = unknownKey(value, REQUEST_KEYS)
  if (extra !== undefined) return refuse(id, ErrorCode.InvalidRequest, `Invalid Request: a request has no member ${quoteInput(extra)}`, silent)
  if (Object.hasOwn(value, 'params')) {
    const params = value.params
    // JSON-RPC allows by-position (array) params, which makes them a params error; anything else is not a request
    if (Array.isArray(params)) return refuse(id, ErrorCode.InvalidParams, 'Invalid params: MCP params are an object, not an array', silent)
    if (!isObject(params)) return refuse(id, ErrorCode.InvalidRequest, 'Invalid Request: "params" must be an object', silent)
    // an own "__proto__" becomes the prototype of the SDK's copy of params: refused like any key no schema has
    if (Object.hasOwn(params, '__proto__')) return refuse(id, ErrorCode.InvalidParams, 'Invalid params: "__proto__" is not a parameter', silent)
    const meta = params._meta
    if (meta !== undefined && (!isObject(meta) || Object.hasOwn(meta, '__proto__'))) return refuse(id, ErrorCode.InvalidParams, 'Invalid params: "_meta" must be an object of metadata', silent)
  }
  const schema = hasId ? JSONRPCRequestSchema : JSONRPCNotificationSchema
  const parsed = schema.safeParse(value)
  if (!parsed.success) return refuse(id, ErrorCode.InvalidParams, `Invalid params: ${firstIssue(parsed.error)}`, silent)
  return { ok: true, message: parsed.data, ...(id !== null ? { id } : {}) }
}

/**
 * The SDK answers a request whose params its handler's schema refuses with `-32603` and the whole
 * zod issue list (JSON, ~1 KB) as the message; JSON-RPC says `-32602`. Such an answer is rewritten
 * on its way out, with the first issue only; every other answer is returned as it is.
 */
export function asParamsError<T extends { error?: { code: number; message: string } }>(answer: T): T {
  const error = answer.error
  if (!error || error.code !== ErrorCode.InternalError || !error.message.startsWith('[')) return answer
  let issues: unknown
  try {
    issues = JSON.parse(error.message)
  } catch {
    return answer
  }
  if (!Array.isArray(issues) || !issues.length || !issues.every((i) => i && typeof i.message === 'string' && Array.isArray(i.path))) return answer
  return { ...answer, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${firstIssue({ issues })}` } }
}

function unknownKey(value: Record<string, unknown>, known: ReadonlySet<string>): string | undefined {
  for (const key of Object.keys(value)) if (!known.has(key)) return key
  return undefined
}

/** The first problem zod found, as `path: message`, short. */
function firstIssue(error: { issues: ReadonlyArray<Issue> }): string {
  let issue = error.issues[0]
  if (!issue) return 'not a message this server reads'
  let path = [...issue.path]
  // a union's own issue ("Invalid input") hides why: its first branch's first issue, below the union's path
  while (issue.errors?.[0]?.[0]) {
    issue = issue.errors[0][0]
    path = [...path, ...issue.path]
  }
  const where = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '')
  return `${where ? `${where.slice(0, QUOTE_LIMIT)}: ` : ''}${issue.message.slice(0, QUOTE_LIMIT)}`
}

interface Issue {
  path: ReadonlyArray<PropertyKey>
  message: string
  errors?: ReadonlyArray<ReadonlyArray<Issue>>
}
