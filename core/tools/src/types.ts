/**
 * The public shapes of tools, calls and results (DESIGN §5).
 */
import type { Awaitable, JsonObject, JsonValue, ResultErrorCode, SandboxMode, Session } from '@dsh/kernel'


/** A JSON Schema. Tool parameters must be an object schema. */
export type JsonSchema = { [key: string]: any }

/** MCP-shaped content. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string }

/** What a tool body may return. */
export type ToolOutput = string | ContentBlock[] | { content?: ContentBlock[] | string; value?: JsonValue }

export type Concurrency = 'parallel' | 'exclusive'

/** What the body receives besides its arguments. */
export interface ToolCall {
  callId: string
  name: string
  session: Session
  /** the caller's signal fused with any wrapper's: abort means stop */
  signal: AbortSignal
  /** set for sub-dispatches from a `run_code` program */
  nested: boolean
  /** the execution the body belongs to; its `signal` is this call's `signal` (one signal to listen to) */
  exec: Execution
  /** a sandbox mode an approval explicitly granted for this one call (highest in the mode resolution order) */
  approvedSandboxMode?: SandboxMode
  /** add audit facts to this call's `tool/result` event (a sandbox backend and its enforcement, say) */
  record(facts: Record<string, JsonValue>): void
  /**
   * Say how far the call is, for a host that shows it (an MCP client that
   * asked for progress). The latest report wins; a function is read only when
   * the host sends an update, so a body may report once with a function over
   * its own counters. Nothing happens when no host listens.
   */
  progress(report: ProgressReport): void
  /**
   * Call another tool through the whole pipeline (audited, gated, approved,
   * confined) as a sub-call of this one: `parent` is this call, so it works
   * under code mode too, and its id is `<callId>:call:<n>`. Resolves to its
   * result; never rejects. The sub-call runs under this body's signal (fused
   * with `options.signal` when given).
   */
  execute(name: string, args?: unknown, options?: SubCallOptions): Promise<ToolResult>
}

/** Options of `ToolCall.execute`. */
export interface SubCallOptions {
  /** a further signal to stop the sub-call (this body's own always applies) */
  signal?: AbortSignal
}

/** A line for people about a running call ("1,204 bytes, 37 lines of output so far"), or a function giving it. */
export type ProgressReport = string | (() => string)

/**
 * Hints about a tool's behaviour, with MCP's meanings (`ToolAnnotations`):
 * hints for a client's user interface, never a security boundary.
 */
export interface ToolAnnotations {
  /** it does not modify its environment (MCP's default: false) */
  readOnlyHint?: boolean
  /** when not read-only: it may destroy or overwrite, rather than only add (MCP's default: true) */
  destructiveHint?: boolean
  /** when not read-only: calling it again with the same arguments has no further effect (MCP's default: false) */
  idempotentHint?: boolean
  /** it may reach entities outside a closed world, such as the network (MCP's default: true) */
  openWorldHint?: boolean
}

export interface ToolDefinition<A extends JsonObject = any> {
  name: string
  /** a human-readable name for a client's user interface */
  title?: string
  description: string
  parameters: JsonSchema
  annotations?: ToolAnnotations
  /** an object schema every success `value` is checked against (a mismatch is a `TOOL_FAILED` result) */
  outputSchema?: JsonSchema
  execute(args: A, call: ToolCall): Awaitable<ToolOutput>
  timeoutMs?: number
  concurrency?: Concurrency | ((args: A) => Concurrency)
  prompt?: string
  finalizeContent?(exec: Execution, result: ToolResult): ContentBlock[] | undefined
  /**
   * the sandbox mode a call with these arguments needs (`write`/`edit`: `workspace-write`); an
   * approved ask for a call needing more than the session's mode runs it with this mode, and
   * without an ask such a call ends `DENIED` before its body
   */
  requiredMode?: SandboxMode | ((args: A) => SandboxMode | undefined)
}

/** The step of the pipeline (or the kind of policy inside one) that decided a failure. */
export type ErrorSourceKind = 'prepare' | 'pre-execute' | 'rule' | 'hook' | 'approval' | 'guard' | 'mode' | 'sandbox' | 'body' | 'post-execute'

/**
 * Who decided a failure: the step, the plugin (its cordis name) whose listener,
 * guard or tool it was, and the rule, hook command or guard where there is one.
 * The plugin is always the pipeline's finding, never a listener's claim.
 */
export interface ErrorSource {
  kind: ErrorSourceKind
  plugin?: string
  detail?: string
}

export interface ToolError {
  code: ResultErrorCode
  message: string
  /** who decided it (absent only on an error a listener or host built by hand) */
  source?: ErrorSource
}

/**
 * What a `tools/pre-execute` listener (on a deny or an ask) or a
 * `tools/post-execute` listener (on a block) may say about its own decision:
 * that a permission rule, a hook or a mode made it, and which one. The
 * pipeline adds the plugin that owns the listener.
 */
export interface DecisionSource {
  kind?: 'rule' | 'hook' | 'mode'
  detail?: string
}

export interface ToolResult {
  callId: string
  name: string
  isError: boolean
  content: ContentBlock[]
  value?: JsonValue
  error?: ToolError
}

/** A visibility scope: an object whose cordis filter decides which owners' tools it sees. */
export type ToolScope = object

/** An opaque, unforgeable token identifying the `run_code` call a sub-dispatch belongs to. */
export interface ParentToken {
  readonly callId: string
}

/** What a host passes to `kernel.execute`: the request as given, checked by the pipeline. */
export interface ExecuteInput {
  callId: string
  name: string
  arguments: unknown
  session: Session
  signal?: AbortSignal
  scope?: ToolScope
  parent?: ParentToken
  /** the host's listener for the body's progress reports (absent: they go nowhere); a throwing listener is ignored */
  onProgress?(report: ProgressReport): void
}

/** What listeners and guards see: the input with frozen arguments. */
export interface Execution {
  readonly callId: string
  readonly name: string
  readonly arguments: Readonly<JsonObject>
  readonly session: Session
  readonly signal: AbortSignal
  readonly scope?: ToolScope
  readonly parent?: ParentToken
  readonly nested: boolean
}

export type PreToolDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string; source?: DecisionSource }
  /** ask a human; `sandboxMode` asks to run this one call under an explicit (escalated) mode */
  | { kind: 'ask'; reason?: string; sandboxMode?: SandboxMode; source?: DecisionSource }

export interface BlockDecision {
  kind: 'block'
  feedback: string
  source?: DecisionSource
}

export interface PostExecuteInput {
  readonly exec: Execution
  readonly result: ToolResult
}

/**
 * What a guard answers: nothing to let the call go on, a reason to deny it, or
 * `{ ask: reason }` to require an approval even where every `tools/pre-execute`
 * listener allowed it (deny > ask > allow; only an approval lets it through).
 */
export type GuardVerdict = string | { ask: string } | undefined | void

export type Guard = (exec: Execution) => Awaitable<GuardVerdict>

export type ToolsMode = 'native' | 'code' | 'both'
