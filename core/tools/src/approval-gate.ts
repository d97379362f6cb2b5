/**
 * The contract between the pipeline and an approval service (the service
 * itself lives in `@dsh/approval`). Declared here so the pipeline depends on a
 * shape, not on a package.
 */
import type { SandboxMode } from '@dsh/kernel'
import type { Execution } from './types.js'

export type ApprovalOutcome =
  | { kind: 'approved'; grant: 'once' | 'session'; sandboxMode?: SandboxMode }
  | { kind: 'denied'; reason: string }
  | { kind: 'unavailable'; reason: string }

export interface ApprovalRequest {
  exec: Execution
  reason?: string
  /** an explicit sandbox mode the call would run under if approved */
  sandboxMode?: SandboxMode
}

export interface ApprovalGate {
  request(request: ApprovalRequest): Promise<ApprovalOutcome>
}
