/**
 * The part of the Agent Client Protocol the adapter speaks: the params and
 * response of `session/request_permission`, as the ACP schema defines them.
 * Declared here rather than imported, so the adapter works with any SDK
 * version whose connection sends these shapes.
 */

export type AcpToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other'

export type AcpPermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always'

export interface AcpPermissionOption {
  optionId: string
  name: string
  kind: AcpPermissionOptionKind
}

export interface AcpToolCallLocation {
  /** an absolute path */
  path: string
  line?: number
}

export interface AcpTextToolCallContent {
  type: 'content'
  content: { type: 'text'; text: string }
}

/** The tool call the permission is asked for (an ACP `ToolCallUpdate`). */
export interface AcpPermissionToolCall {
  toolCallId: string
  title: string
  kind: AcpToolKind
  status: 'pending'
  locations: AcpToolCallLocation[]
  rawInput: unknown
  content?: AcpTextToolCallContent[]
}

export interface AcpPermissionRequest {
  sessionId: string
  toolCall: AcpPermissionToolCall
  options: AcpPermissionOption[]
}

export type AcpPermissionOutcome = { outcome: 'cancelled' } | { outcome: 'selected'; optionId: string }

export interface AcpPermissionResponse {
  outcome: AcpPermissionOutcome
}

/**
 * The agent's side of `session/request_permission`. `signal` aborts when the
 * kernel withdraws the ask (timeout, the call cancelled): pass it on as the
 * SDK's cancellation signal, so the client is told to dismiss the question.
 */
export type RequestPermission = (params: AcpPermissionRequest, options: { signal: AbortSignal }) => Promise<AcpPermissionResponse>
