/**
 * One approval request as an ACP permission request, and the client's answer
 * as an `ApprovalOutcome`. The options are allow once, allow always (a
 * session grant for these exact arguments, offered only where the approval
 * service will record it: `request.grantable`) and reject. A cancelled request,
 * an answer that names no option offered, or a malformed answer is
 * `unavailable`, which the pipeline refuses like a denial.
 */
import { describeError, type ApprovalOutcome, type ApprovalRequestEvent } from 'dsh'
import { safeText, toolKind, toolLocations, toolTitle } from './describe-call.js'
import type { AcpPermissionOption, AcpPermissionRequest, AcpTextToolCallContent, AcpToolKind } from './protocol.js'

export const OPTIONS: readonly AcpPermissionOption[] = Object.freeze([
  Object.freeze({ optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' as const }),
  Object.freeze({ optionId: 'allow-always', name: 'Allow always (these exact arguments, this session)', kind: 'allow_always' as const }),
  Object.freeze({ optionId: 'reject', name: 'Reject', kind: 'reject_once' as const }),
])

const MAX_NOTE_CHARS = 500

export interface DescribeOptions {
  sessionId: string
  workspace: string
  kinds?: Readonly<Record<string, AcpToolKind>>
}

const text = (value: string): AcpTextToolCallContent => ({ type: 'content', content: { type: 'text', text: value } })

/** The `session/request_permission` params for one request. */
export function permissionRequest(request: ApprovalRequestEvent, options: DescribeOptions): AcpPermissionRequest {
  const { exec } = request
  const locations = toolLocations(exec, options.workspace)
  const notes: AcpTextToolCallContent[] = []
  if (request.reason !== undefined) notes.push(text(`Reason: ${safeText(request.reason, MAX_NOTE_CHARS)}`))
  if (request.sandboxMode) notes.push(text(`It would run with sandbox mode ${request.sandboxMode}.`))
  if (exec.parent) notes.push(text(`Called by the run_code program of call ${safeText(String(exec.parent.callId), 100)}.`))
  return {
    sessionId: options.sessionId,
    toolCall: {
      toolCallId: String(exec.callId),
      title: toolTitle(exec, locations),
      kind: toolKind(exec.name, options.kinds),
      status: 'pending',
      locations,
      rawInput: exec.arguments,
      ...(notes.length ? { content: notes } : {}),
    },
    // "allow always" only where the approval service will record the grant
    options: OPTIONS.filter((option) => request.grantable === true || option.kind !== 'allow_always').map((option) => ({ ...option })),
  }
}

/** What the client's answer means; `grantable` says whether "allow always" was offered. */
export function readPermission(response: unknown, grantable = true): ApprovalOutcome {
  const outcome = (response as { outcome?: unknown } | null | undefined)?.outcome as { outcome?: unknown; optionId?: unknown } | undefined
  if (outcome?.outcome === 'cancelled') return { kind: 'unavailable', reason: 'the ACP client cancelled the permission request' }
  if (outcome?.outcome === 'selected') {
    switch (outcome.optionId) {
      case 'allow-once': return { kind: 'approved', grant: 'once' }
      case 'allow-always':
        if (grantable) return { kind: 'approved', grant: 'session' }
        break
      case 'reject': return { kind: 'denied', reason: 'rejected in the ACP client' }
    }
    return { kind: 'unavailable', reason: `the ACP client selected an option that was not offered (${safeText(JSON.stringify(outcome.optionId) ?? 'undefined', 100)})` }
  }
  let shown: string
  try {
    shown = safeText(JSON.stringify(response) ?? 'undefined', 200)
  } catch (error) {
    shown = describeError(error)
  }
  return { kind: 'unavailable', reason: `the ACP client answered the permission request with no outcome: ${shown}` }
}
