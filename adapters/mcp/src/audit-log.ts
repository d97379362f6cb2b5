/** The `logging` capability: each session event sent as `notifications/message` once the client set a level, off the pipeline's path, since the SDK alone would send everything (docs/architecture.md, MCP server). */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { LoggingLevelSchema, SetLevelRequestSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js'
import type { SessionEvent } from '@dsh/kernel'

const SEVERITY = new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, index) => [level, index]))
const REFUSALS: ReadonlySet<string> = new Set(['DENIED', 'APPROVAL_UNAVAILABLE', 'BLOCKED'])

/** The level an event is sent at. */
export function levelOf(event: SessionEvent): LoggingLevel {
  const data = event.data as { isError?: boolean; error?: { code?: string }; outcome?: { kind?: string } } | undefined
  if (event.type === 'tool/result' && data?.isError && REFUSALS.has(String(data.error?.code))) return 'warning'
  if (event.type === 'approval/decided' && data?.outcome?.kind !== 'approved') return 'warning'
  // a reload that did not happen leaves the person running a set they did not mean to (DESIGN §16.2)
  if (event.type === 'mcp/reload-failed' || event.type === 'mcp/reload-refused') return 'error'
  return 'info'
}

export interface AuditLog {
  /** the level the client set, if it set one */
  readonly level: LoggingLevel | undefined
  /** send one message now, if the client's level admits it (for the server's own notices) */
  send(level: LoggingLevel, data: unknown): void
  /** start forwarding a session's events; returns the disposer */
  follow(session: { observe(listener: (event: SessionEvent) => void): () => void }): () => void
}

export function auditLog(server: Server, onError: (error: unknown) => void): AuditLog {
  let level: LoggingLevel | undefined
  let queue: SessionEvent[] = []
  let scheduled = false
  const admits = (wanted: LoggingLevel) => level !== undefined && SEVERITY.get(wanted)! >= SEVERITY.get(level)!
  const send = (wanted: LoggingLevel, data: unknown) => {
    if (!admits(wanted)) return
    server.sendLoggingMessage({ level: wanted, logger: 'dsh', data }).catch(onError)
  }
  const drain = () => {
    scheduled = false
    const batch = queue
    queue = []
    for (const event of batch) send(levelOf(event), event)
  }

  // replaces the SDK's handler: it keeps the level per transport session and sends everything until one is set
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level
    return {}
  })

  return {
    get level() {
      return level
    },
    send,
    follow(session) {
      return session.observe((event) => {
        if (level === undefined) return
        queue.push(event)
        if (!scheduled) {
          scheduled = true
          setImmediate(drain)
        }
      })
    },
  }
}
