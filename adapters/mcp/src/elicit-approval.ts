/**
 * Approval through MCP elicitation: the request shown to the client's user as
 * a form with one field (allow once / allow for this session — where the
 * approval service will record the grant — / deny), and the answer read back as an `ApprovalOutcome`. Declining or
 * dismissing the form denies; anything the form cannot answer — the client
 * fails, the answer does not match the form, the request is withdrawn — is
 * `unavailable`, which the pipeline refuses as well.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { describeError } from '@dsh/kernel'
import type { ApprovalRequestEvent } from '@dsh/approval'
import { describeModeGrant, type ApprovalOutcome } from '@dsh/tools'

export const DECISION = Object.freeze({ once: 'allow once', session: 'allow for this session', deny: 'deny' })

const MAX_ARGUMENTS_CHARS = 2000
const MAX_REASON_CHARS = 500
/** the longest delay a Node timer takes: the approval service's own deadline ends the request first */
const NO_SDK_TIMEOUT = 2 ** 31 - 1

// control characters and bidirectional overrides would let hostile text disguise itself on the client's screen
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

function safe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text
}

const MAX_SUBJECT_CHARS = 160

/** What the call acts on, for the first line: the command, the path, the URL or the pattern. */
function subjectOf(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined
  const a = args as Record<string, unknown>
  for (const key of ['command', 'file_path', 'url', 'path', 'pattern', 'notebook_path']) {
    if (typeof a[key] === 'string' && a[key] !== '') return a[key] as string
  }
  return undefined
}

/** One line of the shown text: line breaks and control characters as escapes, cut. */
function oneLine(text: string, max: number): string {
  return safe(cut(text.replace(/\r?\n/g, '\\n'), max))
}

/**
 * The form shown for one request. Clients show the first lines of the message (Claude Code: 3),
 * so they say what is asked — the tool and its command or path, the sandbox mode it would run
 * with, why it asks — and the arguments follow. The one field is the decision, allowing first and
 * by default: accepting the form as shown allows (Claude Code: Enter, Enter), and declining or
 * dismissing it (Esc) denies.
 */
export function approvalForm(request: ApprovalRequestEvent): ElicitRequestFormParams {
  const { exec } = request
  let args: string
  try {
    args = JSON.stringify(exec.arguments, null, 2) ?? 'undefined'
  } catch (error) {
    args = `(cannot be shown: ${describeError(error)})`
  }
  const name = safe(String(exec.name))
  const subject = subjectOf(exec.arguments)
  const mode = request.sandboxMode
  const withMode = mode ? ` with sandbox mode ${mode}` : ''
  const lines = [subject !== undefined ? `Allow ${name}${withMode}: ${oneLine(subject, MAX_SUBJECT_CHARS)}` : `Allow the tool call ${JSON.stringify(name)}${withMode}?`]
  if (request.reason !== undefined) lines.push(`Why dsh asks: ${oneLine(request.reason, MAX_REASON_CHARS)}`)
  lines.push(`${mode ? `Allowing lets this call ${describeModeGrant(mode)}. ` : ''}Accept allows it; Decline or Esc denies it.`)
  if (exec.parent) lines.push(`From the run_code call ${JSON.stringify(safe(String(exec.parent.callId)))}.`)
  lines.push(`Arguments:\n${safe(cut(args, MAX_ARGUMENTS_CHARS))}`)
  // offered only where the approval service will record the grant
  if (request.grantable === true) lines.push(`"${DECISION.session}" approves these exact arguments for the rest of this session.`)
  return {
    mode: 'form',
    message: lines.join('\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          enum: request.grantable === true ? [DECISION.once, DECISION.session, DECISION.deny] : [DECISION.once, DECISION.deny],
          default: DECISION.once,
        },
      },
      required: ['decision'],
    },
  }
}

/** The outcome a client's answer means; `grantable` says whether "allow for this session" was offered. */
export function readAnswer(answer: ElicitResult, grantable = true): ApprovalOutcome {
  if (answer.action === 'decline') return { kind: 'denied', reason: 'the MCP client declined the approval request' }
  if (answer.action === 'cancel') return { kind: 'denied', reason: 'the MCP client dismissed the approval request' }
  const decision = answer.content?.decision
  if (decision === DECISION.once) return { kind: 'approved', grant: 'once' }
  if (decision === DECISION.session) {
    if (grantable) return { kind: 'approved', grant: 'session' }
    return { kind: 'unavailable', reason: `the MCP client answered "${DECISION.session}", which was not offered: no session grant can be recorded for this request` }
  }
  if (decision === DECISION.deny) {
    const reason = typeof answer.content?.reason === 'string' && answer.content.reason.trim() ? answer.content.reason : undefined
    return { kind: 'denied', reason: reason ? `denied through the MCP client: ${reason}` : 'denied through the MCP client' }
  }
  return { kind: 'unavailable', reason: `the MCP client accepted without a valid decision (${JSON.stringify(decision ?? null)})` }
}

/** Ask the client; never rejects. */
export async function elicitApproval(server: Server, request: ApprovalRequestEvent, relatedRequestId?: string | number): Promise<ApprovalOutcome> {
  let answer: ElicitResult
  // withdrawn while unanswered (answered elsewhere, timed out, call cancelled): the SDK tells the client
  // to dismiss the form. The SDK keeps listening to the signal it is given after the answer came, so
  // it gets one that stops following the request's signal once the client has answered.
  const withdraw = new AbortController()
  const follow = () => withdraw.abort(request.signal.reason)
  if (request.signal.aborted) follow()
  else request.signal.addEventListener('abort', follow, { once: true })
  try {
    answer = await server.elicitInput(approvalForm(request), {
      signal: withdraw.signal,
      timeout: NO_SDK_TIMEOUT,
      ...(relatedRequestId !== undefined ? { relatedRequestId } : {}),
    })
  } catch (error) {
    return { kind: 'unavailable', reason: `the MCP client could not answer the approval request: ${describeError(error)}` }
  } finally {
    request.signal.removeEventListener('abort', follow)
  }
  return readAnswer(answer, request.grantable === true)
}
