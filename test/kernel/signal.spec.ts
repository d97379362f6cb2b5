import { describe, expect, it } from 'vitest'
import { fuseSignals } from '@dsh/kernel'

describe('fuseSignals', () => {
  it('is free when nothing replaces the signal', () => {
    const caller = new AbortController().signal
    expect(fuseSignals(caller, undefined).signal).toBe(caller)
    expect(fuseSignals(caller, caller).signal).toBe(caller)
  })

  it('aborts when the caller aborts', () => {
    const caller = new AbortController()
    const other = new AbortController()
    const fused = fuseSignals(caller.signal, other.signal)
    caller.abort(new Error('stop'))
    expect(fused.signal.aborted).toBe(true)
    expect((fused.signal.reason as Error).message).toBe('stop')
  })

  it('aborts when the other signal aborts', () => {
    const caller = new AbortController()
    const other = new AbortController()
    const fused = fuseSignals(caller.signal, other.signal)
    other.abort('deadline')
    expect(fused.signal.aborted).toBe(true)
    expect(fused.signal.reason).toBe('deadline')
  })

  it('returns an already aborted input as is', () => {
    const caller = new AbortController()
    caller.abort()
    expect(fuseSignals(caller.signal, new AbortController().signal).signal).toBe(caller.signal)
  })

  it('stops listening after release', () => {
    const caller = new AbortController()
    const other = new AbortController()
    const fused = fuseSignals(caller.signal, other.signal)
    fused.release()
    caller.abort()
    expect(fused.signal.aborted).toBe(false)
  })
})

describe('fuseSignals without a caller signal', () => {
  it('returns the other signal itself: nothing to fuse', async () => {
    const { neverAborted } = await import('@dsh/kernel')
    const other = new AbortController()
    expect(fuseSignals(neverAborted, other.signal).signal).toBe(other.signal)
  })
})
