/**
 * The MCP server over a kernel. `tools/list` is `wireSchemas()`; `tools/call`
 * runs the full pipeline (`kernel.execute`) in the connection's one session,
 * scheduled by concurrency class, with the request's cancellation as the
 * call's signal. Approval requests of that session that none of the kernel's
 * own approvers answered are asked through MCP elicitation when the client
 * declared it. The connection is one turn: opened at `initialized`, ended at
 * `close()`.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ForkScope } from 'cordis'
import { canonicalJson, describeError, type Session } from '@dsh/kernel'
import { ToolScheduler, type ToolService } from '@dsh/tools'
import type { McpKernel, ReloadSummary } from './kernel-handle.js'
import { connectNotice, refusalReason } from './approval-notice.js'
import { auditLog } from './audit-log.js'
import { elicitApproval } from './elicit-approval.js'
import { lazyJsonSchemaValidator } from './json-schema-validator.js'
import { answerWithInstructions } from './instructions.js'
import { CallGate } from './call-gate.js'
import { MCP_SERVER_DEFAULTS } from './limits.js'
import { IdleSignal } from './idle-signal.js'
import { trackProgress } from './progress.js'
import { RawArguments } from './raw-arguments.js'
import { toCallToolResult } from './results.js'
import { ToolListNotifier } from './tool-list.js'
import { toMcpTool } from './tool-wire.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /** the MCP client that opened this session */
    'mcp/connected': { client?: { name: string; version: string }; elicitation: boolean; resumed?: { events: number } }
    /** a reload the server ran (`--watch`) and what it changed */
    'mcp/reloaded': { added: string[]; removed: string[]; changed: string[] }
    /** a reload that failed: the previous set stays */
    'mcp/reload-failed': { error: string }
    /** a reload not applied because a watched file holds what a call left (dsh's reload/reload-guard.ts): the previous set stays */
    'mcp/reload-refused': { files: string[]; calls: string[]; reason: string }
    /** `abandoned`: the calls still running when the shutdown's grace ran out (their bodies ignored the cancellation) */
    'mcp/closed': { reason: string; abandoned?: string[] }
  }
}

export interface McpServerOptions {
  /** the connection's session id (default `mcp-<uuid>`) */
  sessionId?: string
  /** one line of diagnostics (default: stderr) */
  log?(line: string): void
  /** how long `close()` waits for cancelled calls to finish (default 5000 ms) */
  shutdownGraceMs?: number
  /** told of every call before it is scheduled and once it settled (`--watch`'s ReloadGuard) */
  calls?: CallWindow
  /** tool calls running at once; more wait their turn (default 16) */
  maxConcurrentCalls?: number
  /**
   * Waited for before each tool call starts, after its place among the running calls: the
   * transport's flow control (`DshStdioTransport.admit`), so a client that does not read stalls its calls.
   */
  admit?(signal: AbortSignal): Promise<void> | undefined
  /**
   * Calls `done` once the request's answer is handed to the transport (`DshStdioTransport.afterAnswer`):
   * a call keeps its place until its result counts as bytes in flight. Default: at once.
   */
  afterAnswer?(requestId: string | number, done: () => void): void
  /**
   * Answers kept from an earlier start (`dsh mcp`'s start-up snapshot): with them, `initialize` and
   * `tools/list` are answered while the kernel starts; calls wait for the kernel. Once it is up, a
   * differing list is announced.
   */
  early?: EarlyAnswer
  /** told when a `tools/list` was answered from `early`, and when a call waits for the kernel */
  onEarlyAnswer?(): void
}

/** What a start answers before its kernel is there. `tools` are the MCP wire form (`toMcpTool`). */
export interface EarlyAnswer {
  instructions: string
  tools: Array<{ name: string } & Record<string, unknown>>
}

/** What `--watch` needs to know of the calls: `enter` may hold a call back while a reload reads. */
export interface CallWindow {
  enter(callId: string, name: string): Promise<void>
  leave(callId: string): void
}

export interface DshMcpServer {
  /** the SDK server (low level) */
  readonly server: Server
  /** the connection's session, once the client is initialized */
  readonly session: Session | undefined
  connect(transport: Transport): Promise<void>
  /** `kernel.reload()` (re-reading the config file), logged in the session; the client is notified if its tool list changed, and told of a failure at level `error` */
  reload(): Promise<ReloadSummary>
  /** a reload not applied: logged in the session (`mcp/reload-refused`) and sent to the client at level `error` */
  refuseReload(refusal: { files: string[]; calls: string[]; message: string }): Promise<void>
  /** cancel what runs, end the turn, close the session and the transport. Idempotent. */
  close(reason: string): Promise<void>
  /** the answers a start gives first, as the kernel now has them (after `ready`) */
  firstAnswer(): Promise<EarlyAnswer>
  /** settles once the kernel is there and the server's listeners are on it */
  readonly ready: Promise<void>
}

const VERSION: string = (() => {
  try {
    return JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
  } catch {
    return '0.0.0'
  }
})()

const short = (text: unknown) => String(text ?? '').slice(0, 200)

/**
 * `starting`: the kernel, or its start — the server then answers what it can before the kernel is
 * there (`options.early`) and holds every call until it is; a start that fails fails the calls held.
 */
export function createMcpServer(starting: McpKernel | Promise<McpKernel>, options: McpServerOptions = {}): DshMcpServer {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  // Why a binding set once: every handler below that reaches the kernel runs after `ready`
  let kernel!: McpKernel
  const tools = (): ToolService => kernel.ctx.tools
  const server = new Server({ name: 'dsh', version: VERSION }, { capabilities: { tools: { listChanged: true }, logging: {} }, jsonSchemaValidator: lazyJsonSchemaValidator() })
  const audit = auditLog(server, (error) => log(`dsh mcp: could not send a log message: ${describeError(error)}`))
  let unfollow: (() => void) | undefined
  const scheduler = new ToolScheduler()
  const gate = new CallGate(options.maxConcurrentCalls ?? MCP_SERVER_DEFAULTS.maxConcurrentCalls)
  const closing = new AbortController()
  const running = new Set<Promise<unknown>>()
  /** MCP request id of each call in flight, for elicitations related to it */
  const requestOf = new Map<string, string | number>()
  const sent = new RawArguments()
  let session: Session | undefined
  let initialized = false
  let closed: Promise<void> | undefined

  let notifier!: ToolListNotifier
  const idle = new IdleSignal(closing.signal, (error) => log(`dsh mcp: a tools/idle listener failed: ${describeError(error)}`))
  /** whether a `tools/list` was answered from the snapshot */
  let listedEarly = false

  const canElicit = () => Boolean(server.getClientCapabilities()?.elicitation?.form)

  const open = (): Session => {
    if (session) return session
    session = kernel.openSession({ id: options.sessionId ?? `mcp-${randomUUID()}` })
    // a session reopened by id (`dsh mcp --session`) comes back with its events, and its grants with them
    const recovered = session.events().length
    // an MCP connection has no turns of its own: it is one turn, so approval is possible for all its calls
    session.beginTurn()
    unfollow = audit.follow(session)
    const client = server.getClientVersion()
    session.append('mcp/connected', {
      ...(client ? { client: { name: short(client.name), version: short(client.version) } } : {}),
      elicitation: canElicit(),
      ...(recovered ? { resumed: { events: recovered } } : {}),
    }).catch(() => {})
    log(`dsh mcp: ${recovered ? `resumed session ${session.id} with ${recovered} events` : `session ${session.id}`} (${session.path})`)
    return session
  }

  const onInitialized = () => {
    open()
    initialized = true
    // SDK 1.32 receivers ignore `notifications/cancelled` for request id 0 (typescript-sdk#2283), and a
    // server's first request gets id 0: spend it on a ping, so a withdrawn approval form is really withdrawn
    if (canElicit()) server.ping().catch(() => {})
    else {
      // told once, where a person sees it (stderr) and where the client does (a log message)
      const notice = connectNotice()
      log(`dsh mcp: ${notice}`)
      server.sendLoggingMessage({ level: 'warning', logger: 'dsh', data: { type: 'mcp/no-elicitation', message: notice } }).catch(() => {})
    }
    // the set may have changed between connecting and now: the client lists after this anyway
    notifier.check()
  }

  let up = false
  const early = options.early
  const ready: Promise<void> = Promise.resolve(starting).then((k) => {
    kernel = k
    up = true
    notifier = new ToolListNotifier({
      current: () => tools().wireSchemas(),
      send: () => server.sendToolListChanged(),
      ready: () => initialized && !closing.signal.aborted,
      onError: (error) => log(`dsh mcp: could not send tools/list_changed: ${describeError(error)}`),
    })
    plug()
    idle.up(k)
    // what the client was sent from the snapshot is what the kernel has, or the client is told to list again
    if (listedEarly && early && canonicalJson(tools().wireSchemas().map(toMcpTool)) !== canonicalJson(early.tools)) {
      server.sendToolListChanged().catch((error) => log(`dsh mcp: could not send tools/list_changed: ${describeError(error)}`))
    }
  })
  ready.catch(() => {})
  // the client's initialized may come before the kernel: the session opens once it is there
  server.oninitialized = () => {
    if (up) onInitialized()
    else ready.then(onInitialized, () => {})
  }
  const assemble = async () => (await ready, kernel.ctx.systemPrompt.assemble())
  answerWithInstructions(server, () => (up || !early ? assemble() : Promise.resolve(early.instructions)), (error) => log(`dsh mcp: the system prompt could not be assembled for the instructions: ${describeError(error)}`))

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    if (!up && early) {
      listedEarly = true
      options.onEarlyAnswer?.()
      idle.listedTools()
      return { tools: early.tools as Tool[] }
    }
    await ready
    idle.listedTools()
    return { tools: tools().wireSchemas().map(toMcpTool) }
  })

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    idle.callArrived()
    // Why nothing runs before: the plugins that decide (rules, hooks, guards, the sandbox) are applied only then
    if (!up) {
      options.onEarlyAnswer?.()
      await ready
    }
    const own = open()
    const { name } = request.params
    // Why the raw arguments when there are any: the SDK's parse drops an own "__proto__" key, which must reach validation
    const args = sent.take(extra.requestId) ?? request.params.arguments ?? {}
    // a numeric id through JSON.stringify: String() would leave its text in V8's number-to-string
    // cache, which keeps it past young collections (it grew the young generation of a long session)
    const callId = `mcp-${typeof extra.requestId === 'number' ? JSON.stringify(extra.requestId) : String(extra.requestId)}`
    const signal = AbortSignal.any([extra.signal, closing.signal])
    requestOf.set(callId, extra.requestId)
    const token = request.params._meta?.progressToken
    const run = () => scheduler.run(tools().concurrency(name, args), async () => {
      if (token === undefined) return kernel.execute({ callId, name, arguments: args, session: own, signal })
      const progress = trackProgress(token, (notification) => extra.sendNotification(notification), (error) => log(`dsh mcp: could not send progress for ${callId}: ${describeError(error)}`))
      try {
        return await kernel.execute({ callId, name, arguments: args, session: own, signal, onProgress: progress.report })
      } finally {
        progress.stop()
      }
    })
    // a place among the calls running (mcp.maxConcurrentCalls) before the scheduler; a cancelled wait runs at once, and is recorded aborted
    const call = (async () => {
      const release = await gate.acquire(signal)
      try {
        await options.admit?.(signal)
        // only with --watch: a reload that reads meanwhile holds the call back here
        if (options.calls) await options.calls.enter(callId, name)
        try {
          return await run()
        } finally {
          // after the call settled, its sandbox's put-back included: the guard compares what it left
          options.calls?.leave(callId)
        }
      } finally {
        if (options.afterAnswer) options.afterAnswer(extra.requestId, release)
        else release()
      }
    })()
    running.add(call)
    try {
      return toCallToolResult(await call)
    } finally {
      running.delete(call)
      requestOf.delete(callId)
    }
  })

  // the server's listeners live in a plugin of their own: closing disposes them with it
  let fork: ForkScope | undefined
  const plug = () => (fork = kernel.ctx.plugin({
    name: 'dsh-mcp-server',
    apply(ctx) {
      ctx.on('tools/change', () => notifier.check())
      // outermost, and asking the kernel's own approvers first: the client's user is asked only when none of them answered
      ctx.on('approval/request', async (request, next) => {
        const outcome = await next()
        if (outcome.kind !== 'unavailable' || request.session !== session || closing.signal.aborted) return outcome
        if (!canElicit()) return { kind: 'unavailable', reason: refusalReason(outcome.reason) }
        const exec = request.exec
        return elicitApproval(server, request, requestOf.get(exec.callId) ?? (exec.parent ? requestOf.get(exec.parent.callId) : undefined))
      }, true)
    },
  }))

  async function settle(grace: number): Promise<void> {
    if (!running.size) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, grace)))
    await Promise.race([Promise.allSettled([...running]), late])
    clearTimeout(timer)
    if (running.size) log(`dsh mcp: ${running.size} cancelled call(s) still running after ${grace} ms; closing anyway`)
  }

  // Why directly: a client that set no log level hears of no event, and a reload that did not happen it must hear of
  const tellUnlevelled = async (data: { type: string; message: string } & Record<string, unknown>) => {
    if (audit.level !== undefined || !initialized) return
    await server.sendLoggingMessage({ level: 'error', logger: 'dsh', data }).catch((error) => log(`dsh mcp: could not send a log message: ${describeError(error)}`))
  }

  return {
    server,
    get session() {
      return session
    },
    connect: (transport) => server.connect(sent.watch(transport)),
    ready,
    async firstAnswer() {
      await ready
      return { instructions: await kernel.ctx.systemPrompt.assemble(), tools: tools().wireSchemas().map(toMcpTool) }
    },
    async reload() {
      try {
        const summary = await notifier.hold(() => kernel.reload())
        if (summary.added.length + summary.removed.length + summary.changed.length) {
          await session?.append('mcp/reloaded', { added: summary.added, removed: summary.removed, changed: summary.changed }).catch(() => {})
        }
        return summary
      } catch (error) {
        const message = describeError(error)
        await session?.append('mcp/reload-failed', { error: message }).catch(() => {})
        await tellUnlevelled({ type: 'mcp/reload-failed', message })
        throw error
      }
    },
    async refuseReload(refusal) {
      await session?.append('mcp/reload-refused', { files: refusal.files, calls: refusal.calls, reason: refusal.message }).catch(() => {})
      await tellUnlevelled({ type: 'mcp/reload-refused', files: refusal.files, calls: refusal.calls, message: refusal.message })
    },
    close(reason) {
      return (closed ??= (async () => {
        closing.abort(new Error(`the MCP server is closing: ${reason}`))
        await settle(options.shutdownGraceMs ?? 5000)
        const abandoned = [...requestOf.keys()]
        fork?.dispose()
        unfollow?.()
        if (session) {
          await session.append('mcp/closed', { reason, ...(abandoned.length ? { abandoned } : {}) }).catch(() => {})
          session.endTurn()
          // SessionEnd hooks and the like still append to the log before it closes
          await kernel.ctx.sessions.end(session, { reason })
        }
        await server.close().catch(() => {})
      })())
    },
  }
}
