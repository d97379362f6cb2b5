/**
 * One approval prompt on a terminal: the request in a box, then one key —
 * `y` allow once, `a` allow for this session (these exact arguments; offered
 * only where the approval service will record the grant), `n`
 * (or Enter) deny and type a reason. Escape or Ctrl+C denies. The request's signal
 * dismisses the prompt (the call was cancelled or the request timed out).
 */
import { isCancel, log, note, selectKey, text } from '@clack/prompts'
import type { Readable, Writable } from 'node:stream'
import type { ApprovalRequestEvent } from '@dsh/approval'
import type { ApprovalOutcome } from '@dsh/tools'
import { describeRequest, type FormatLimits } from './format.js'

export interface TerminalIO {
  input: Readable
  output: Writable
}

export const DEFAULT_DENY_REASON = 'denied at the terminal'

const withdrawn = (): ApprovalOutcome => ({ kind: 'unavailable', reason: 'the request was withdrawn before an answer' })

export async function promptOnce(request: ApprovalRequestEvent, io: TerminalIO, limits: FormatLimits, signal: AbortSignal): Promise<ApprovalOutcome> {
  const { input, output } = io
  note(describeRequest(request, limits), 'Approval needed', { output })
  const choice = await selectKey({
    message: 'Allow this call?',
    // Deny comes first: Enter alone submits no key, and the prompt then shows the first option
    options: [
      { value: 'n', label: 'Deny (also Enter)' },
      { value: 'y', label: 'Allow once' },
      // only where the approval service will record the grant (request.grantable)
      ...(request.grantable === true ? [{ value: 'a', label: 'Allow for this session (these exact arguments)' }] : []),
    ],
    input,
    output,
    signal,
  })
  if (signal.aborted) {
    log.warn('Approval request withdrawn (the call was cancelled or nobody answered in time).', { output })
    return withdrawn()
  }
  if (isCancel(choice)) {
    log.warn('Dismissed: the call is denied.', { output })
    return { kind: 'denied', reason: DEFAULT_DENY_REASON }
  }
  if (choice === 'y') return { kind: 'approved', grant: 'once' }
  if (choice === 'a' && request.grantable === true) return { kind: 'approved', grant: 'session' }
  // `n`, or Enter without a key: deny, as the prompt shows
  const reason = await text({ message: 'Reason for denying (sent back to the model)', placeholder: DEFAULT_DENY_REASON, input, output, signal })
  if (signal.aborted) return withdrawn()
  const typed = isCancel(reason) ? '' : reason.trim()
  return { kind: 'denied', reason: typed || DEFAULT_DENY_REASON }
}
