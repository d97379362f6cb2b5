/**
 * The events approval dispatches (cordis `Events`) and the session events it
 * writes (`SessionEvents`). Every `approval/*` event is declared durable: the
 * session fsyncs it before `append` resolves.
 */
import { declareDurable, type Awaitable, type JsonObject, type SandboxMode, type Session } from '@dsh/kernel'
import type { ApprovalOutcome, Execution } from '@dsh/tools'

/** What an `approval/request` listener is asked. */
export interface ApprovalRequestEvent {
  exec: Execution
  reason?: string
  session: Session
  sandboxMode?: SandboxMode
  /** aborted when the call is cancelled or the request times out */
  signal: AbortSignal
  /**
   * true when an answer of `grant: 'session'` will be recorded as a session
   * grant for these exact arguments; approvers offer "allow for this session"
   * only then (a gate that keeps no grants leaves it unset)
   */
  grantable?: boolean
}

export type ApprovalPolicy = 'ask' | 'never'

/** What ended a request, recorded in `approval/decided`. */
export type DecidedBy =
  | 'listener'   // an approval/request listener answered
  | 'grant'      // a session grant for these exact arguments matched
  | 'policy'     // policy `never` denied
  | 'fallback'   // nobody answered
  | 'timeout'    // no answer within timeoutMs
  | 'abort'      // the caller cancelled the call
  | 'error'      // a listener threw or called next() twice
  | 'malformed'  // a listener answered something that is not an outcome
  | 'no-turn'    // the session had no open turn
  | 'invalid'    // the request itself was malformed
  | 'stopped'    // the approval service stopped while the request was pending

declare module 'cordis' {
  interface Events {
    /**
     * Answer an approval request. Return an `ApprovalOutcome`, or `next()` to
     * leave it to later listeners; nobody answering ends `unavailable`.
     * `request.signal` aborts when the request is over (answered, timed out or
     * cancelled): a prompt showing it should be dismissed.
     */
    'approval/request'(request: ApprovalRequestEvent, next: () => Promise<ApprovalOutcome>): Awaitable<ApprovalOutcome>
  }
}

declare module '@dsh/kernel' {
  interface SessionEvents {
    'approval/asked': {
      id: string
      callId: string
      name: string
      arguments?: JsonObject
      reason?: string
      sandboxMode?: SandboxMode
      policy: ApprovalPolicy
      /** the session grant that will answer this request, if one matches */
      grantId?: string
      /** the `run_code` call this one was dispatched from */
      parent?: string
      /** why the request is invalid (it is then denied without asking anyone) */
      invalid?: string
    }
    'approval/decided': {
      id: string
      callId: string
      name: string
      outcome: ApprovalOutcome
      by: DecidedBy
      grantId?: string
    }
    'approval/granted': {
      grantId: string
      requestId: string
      callId: string
      name: string
      arguments: JsonObject
      sandboxMode?: SandboxMode
    }
    'approval/revoked': { grantId: string; name: string; reason?: string }
    /** a request asked before a crash that was never decided */
    'approval/interrupted': { id: string; callId: string; name: string; askedSeq: number }
  }
}

// a decision that is not on disk when the call goes on could be forgotten by a crash
declareDurable('approval/asked', 'approval/decided', 'approval/granted', 'approval/revoked', 'approval/interrupted')
