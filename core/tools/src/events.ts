/**
 * The events the tool pipeline dispatches (cordis `Events`) and the session
 * events it writes (`SessionEvents`).
 */
import type { Awaitable, JsonValue } from '@dsh/kernel'
import type { BlockDecision, Execution, PostExecuteInput, PreToolDecision, ToolResult } from './types.js'


declare module 'cordis' {
  interface Events {
    /** gate 1: decide allow, deny or ask */
    'tools/pre-execute'(exec: Execution, next: () => Promise<PreToolDecision>): Awaitable<PreToolDecision>
    /** gate 3: wrap the body; `next({ signal })` may give it another signal (fused with the caller's) */
    'tools/execute'(exec: Execution, next: (override?: { signal?: AbortSignal }) => Promise<ToolResult>): Awaitable<ToolResult | void>
    /** gate 4: replace content/value or block */
    'tools/post-execute'(input: PostExecuteInput, next: () => Promise<ToolResult | BlockDecision>): Awaitable<ToolResult | BlockDecision>
    /** observe-only: the final result, and the audit facts recorded for `tool/result` (frozen; `{}` when none) */
    'tools/result'(exec: Execution, result: ToolResult, facts: Readonly<Record<string, JsonValue>>): void
    /** the visible tool set changed */
    'tools/change'(): void
    /**
     * the host has listed the tools and waits for a first call (dsh mcp, its kernel up, before any
     * call): a listener may load or compile ahead what a first call would otherwise wait for; it
     * decides, allows and runs nothing. `idle()` turns false once a call arrives: check it between steps
     */
    'tools/idle'(idle: () => boolean): void
  }
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'tool/call': { callId: string; name: string; arguments?: JsonValue; unloggable?: string; parent?: string }
    /** the result as returned, plus audit facts a body recorded (a sandbox backend, say) */
    'tool/result': ToolResult & { [fact: string]: unknown }
  }
}

export {}
