/**
 * Signal fusion. A `tools/execute` wrapper may hand the body its own signal
 * (a deadline, say); the body must still hear the caller's cancellation. When
 * the wrapper passes nothing or the caller's own signal, fusion is free: the
 * caller's signal is returned as is. Only a real replacement pays for a
 * controller and two listeners, and `release()` removes them again.
 */
export interface FusedSignal {
  signal: AbortSignal
  /** remove the listeners fusion added; call when the body settled */
  release(): void
}

const noop = () => {}

export function fuseSignals(caller: AbortSignal, other: AbortSignal | undefined): FusedSignal {
  if (!other || other === caller) return { signal: caller, release: noop }
  // a caller without a signal can never abort: the other signal alone says everything
  if (caller === neverAborted) return { signal: other, release: noop }
  if (caller.aborted) return { signal: caller, release: noop }
  if (other.aborted) return { signal: other, release: noop }
  const controller = new AbortController()
  const onCaller = () => finish(caller.reason)
  const onOther = () => finish(other.reason)
  const release = () => {
    caller.removeEventListener('abort', onCaller)
    other.removeEventListener('abort', onOther)
  }
  const finish = (reason: unknown) => {
    release()
    controller.abort(reason)
  }
  caller.addEventListener('abort', onCaller, { once: true })
  other.addEventListener('abort', onOther, { once: true })
  return { signal: controller.signal, release }
}

/** A signal that never aborts, shared (callers without a signal get this one). */
export const neverAborted: AbortSignal = new AbortController().signal
