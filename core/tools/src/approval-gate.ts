/**
 * The contract between the pipeline and an approval service (the service
 * itself lives in `@dsh/approval`). Declared here so the pipeline depends on a
 * shape, not on a package.
 */
import type { Execution } from './types.js'
import type { Session } from '@dsh/kernel'

export type SandboxModeName = 'read-only' | 'workspace-write' | 'danger-full-access'

export type ApprovalOutcome =
  | { kind: 'approved'; grant: 'once' | 'session'; sandboxMode?: SandboxModeName }
  | { kind: 'denied'; reason: string }
  | { kind: 'unavailable'; reason: string }

export interface ApprovalRequest {
  exec: Execution
  reason?: string
  /** an explicit sandbox mode the call would run under if approved */
  sandboxMode?: SandboxModeName
}

export interface ApprovalGate {
  request(request: ApprovalRequest): Promise<ApprovalOutcome>
}

export interface ApprovalRequestEvent {
  exec: Execution
  reason?: string
  session: Session
  sandboxMode?: SandboxModeName
  /** aborted when the call is cancelled or the request times out */
  signal: AbortSignal
}
