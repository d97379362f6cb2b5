/**
 * Asking the `approval/request` listeners: a scoped waterfall (cordis filters
 * of `thisArg` apply, as with `ctx.waterfall(thisArg, ...)`) bounded by a
 * timeout, the caller's signal and the service's lifetime. Whatever happens,
 * exactly one consultation result comes out, the timer is cleared and the
 * request's own signal is aborted so prompts showing it are dismissed.
 */
import type { Context } from 'cordis'
import { compose, describeError, listenerList } from '@dsh/kernel'
import type { ApprovalOutcome, Execution } from '@dsh/tools'
import type { ApprovalRequestEvent } from './events.js'
import type { SandboxMode } from '@dsh/kernel'
import type { Session } from '@dsh/kernel'
import { checkAnswer } from './answer.js'
import type { DecidedBy } from './events.js'

export interface Consultation {
  outcome: ApprovalOutcome
  by: DecidedBy
}

export interface ConsultOptions {
  root: Context
  /** the scope whose cordis filter selects the listeners (and their `this`) */
  thisArg: object | undefined
  exec: Execution
  session: Session
  reason?: string
  sandboxMode?: SandboxMode
  /** whether a `grant: 'session'` answer will be recorded as a grant */
  grantable: boolean
  timeoutMs: number
  /** the caller's signal: aborting it ends the request */
  callerSignal: AbortSignal
  /** aborted when the service stops */
  serviceSignal: AbortSignal
}

type Fn = (...args: any[]) => any

const FALLBACK: ApprovalOutcome = Object.freeze({ kind: 'unavailable', reason: 'no approval/request listener answered' })

function listeners(root: Context, thisArg: object | undefined): readonly Fn[] {
  return listenerList(root, 'approval/request').reachedBy(thisArg)
}

const unavailable = (reason: string): ApprovalOutcome => ({ kind: 'unavailable', reason })

export function consult(options: ConsultOptions): Promise<Consultation> {
  const { exec, session, reason, sandboxMode, grantable, timeoutMs, callerSignal, serviceSignal } = options
  const controller = new AbortController()
  const request: ApprovalRequestEvent = Object.freeze({
    exec,
    session,
    signal: controller.signal,
    ...(reason !== undefined ? { reason } : {}),
    ...(sandboxMode !== undefined ? { sandboxMode } : {}),
    grantable,
  })

  return new Promise<Consultation>((resolve) => {
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (result: Consultation) => {
      if (done) return
      done = true
      clearTimeout(timer)
      callerSignal.removeEventListener('abort', onCallerAbort)
      serviceSignal.removeEventListener('abort', onServiceStop)
      controller.abort(new Error(`approval request ended: ${result.by}`))
      resolve(result)
    }
    const onCallerAbort = () => finish({ outcome: unavailable('the call was cancelled while approval was pending'), by: 'abort' })
    const onServiceStop = () => finish({ outcome: unavailable('the approval service stopped while the request was pending'), by: 'stopped' })
    if (callerSignal.aborted) return onCallerAbort()
    if (serviceSignal.aborted) return onServiceStop()
    callerSignal.addEventListener('abort', onCallerAbort, { once: true })
    serviceSignal.addEventListener('abort', onServiceStop, { once: true })
    timer = setTimeout(() => finish({ outcome: unavailable(`no answer within ${timeoutMs} ms`), by: 'timeout' }), timeoutMs)

    // a listener that calls next() twice is broken: whatever it then returns is not trusted
    let broken: string | undefined
    const guarded = listeners(options.root, options.thisArg).map((fn, index): Fn => function (this: unknown, input: unknown, next: Fn) {
      let calls = 0
      return fn.call(this, input, () => {
        if (++calls > 1) broken ??= `approval/request listener #${index + 1} called next() more than once`
        return next()
      })
    })
    compose<ApprovalRequestEvent, unknown>(guarded, request, () => FALLBACK, { thisArg: options.thisArg }).then(
      (answer) => {
        if (broken) return finish({ outcome: unavailable(broken), by: 'error' })
        if (answer === FALLBACK) return finish({ outcome: { ...FALLBACK }, by: 'fallback' })
        const checked = checkAnswer(answer, sandboxMode)
        if (!checked.ok) return finish({ outcome: unavailable(`an approval/request listener gave a malformed answer: ${checked.problem}`), by: 'malformed' })
        finish({ outcome: checked.outcome, by: 'listener' })
      },
      (error) => finish({ outcome: unavailable(`an approval/request listener failed: ${describeError(error)}`), by: 'error' }),
    )
  })
}
