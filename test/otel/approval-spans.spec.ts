/**
 * Approvals on the span: the outcome, the grant and what decided as
 * attributes; the wait as a span event at the moment gate 1 asked.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { SpanStatusCode } from '@opentelemetry/api'
import type { Context } from 'cordis'
import { answerApprovals, createTestKernel, type TestKernel } from 'dsh/testing'
import type { KernelOptions } from 'dsh'
import { cleanup, otelTestTools, recordSpans, tracked, type Recorder } from './helpers.js'

let k: TestKernel | undefined
let rec: Recorder | undefined
afterEach(cleanup)

async function askingKernel(options: KernelOptions = {}) {
  rec = recordSpans()
  k = tracked(await createTestKernel({ ...options, plugins: { otel: {} } }))
  k.ctx.plugin({
    name: 'asker',
    inject: ['tools'],
    apply(ctx: Context) {
      otelTestTools(ctx)
      ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' ? { kind: 'ask', reason: 'echo needs a yes' } : next()))
      ctx.tools.guard((exec) => (exec.arguments.text === 'guarded' ? 'refused before the approval' : undefined))
    },
  })
  return k
}

const hr = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6

describe('otel: approvals', () => {
  it('records an approval given once, and the wait as a span event inside the span', async () => {
    await askingKernel()
    answerApprovals(k!, async () => {
      await new Promise((resolve) => setTimeout(resolve, 60))
      return { kind: 'approved', grant: 'once' }
    })
    const result = await k!.call('echo', { text: 'hi' }, { callId: 'a1' })
    expect(result.isError).toBe(false)
    const span = rec!.span('a1')
    expect(span.attributes).toMatchObject({
      'dsh.decision': 'allow',
      'dsh.decision.by': 'approval',
      'dsh.approval.outcome': 'approved',
      'dsh.approval.grant': 'once',
      'dsh.approval.by': 'listener',
    })
    expect(span.events).toHaveLength(1)
    const [event] = span.events
    expect(event.name).toBe('dsh.approval')
    expect(event.attributes).toMatchObject({ 'dsh.approval.outcome': 'approved', 'dsh.approval.grant': 'once', 'dsh.approval.by': 'listener' })
    expect(event.attributes!['dsh.approval.wait_ms']).toBeGreaterThanOrEqual(50)
    // asked after the span began, and at least the wait before it ended
    expect(hr(event.time)).toBeGreaterThanOrEqual(hr(span.startTime))
    expect(hr(span.endTime) - hr(event.time)).toBeGreaterThanOrEqual(50)
  })

  it('records a session grant, and the identical second call as decided by the grant', async () => {
    await askingKernel()
    answerApprovals(k!, { kind: 'approved', grant: 'session' })
    await k!.call('echo', { text: 'same' }, { callId: 'g1' })
    await k!.call('echo', { text: 'same' }, { callId: 'g2' })
    expect(rec!.span('g1').attributes).toMatchObject({ 'dsh.approval.grant': 'session', 'dsh.approval.by': 'listener' })
    expect(rec!.span('g2').attributes).toMatchObject({ 'dsh.decision': 'allow', 'dsh.approval.grant': 'session', 'dsh.approval.by': 'grant' })
  })

  it('records a denial and an approval nobody could give as denials by the approval', async () => {
    await askingKernel()
    const stop = answerApprovals(k!, { kind: 'denied', reason: 'not now' })
    await k!.call('echo', { text: 'x' }, { callId: 'd1' })
    stop()
    await k!.call('echo', { text: 'y' }, { callId: 'u1' })
    expect(rec!.span('d1').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'approval', 'dsh.decision.plugin': 'asker', 'dsh.approval.outcome': 'denied', 'dsh.approval.by': 'listener', 'error.type': 'DENIED' })
    expect(rec!.span('u1').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'approval', 'dsh.approval.outcome': 'unavailable', 'dsh.approval.by': 'fallback', 'error.type': 'APPROVAL_UNAVAILABLE' })
    expect(rec!.span('u1').status.code).toBe(SpanStatusCode.ERROR)
    expect(rec!.span('u1').attributes['dsh.approval.grant']).toBeUndefined()
  })

  it('records a guard\'s ask: approved, the call allowed by the approval; refused, the approval\'s denial with the guard\'s plugin', async () => {
    rec = recordSpans()
    k = tracked(await createTestKernel({ plugins: { otel: {} } }))
    k.ctx.plugin({ name: 'asking-guard', inject: ['tools'], apply(ctx: Context) {
      otelTestTools(ctx)
      ctx.tools.guard((exec) => (exec.name === 'echo' ? { ask: 'echo needs a yes' } : undefined))
    } })
    const stop = answerApprovals(k, { kind: 'approved', grant: 'once' })
    expect((await k.call('echo', { text: 'x' }, { callId: 'gy' })).isError).toBe(false)
    expect(rec.span('gy').attributes).toMatchObject({ 'dsh.decision': 'allow', 'dsh.decision.by': 'approval', 'dsh.approval.outcome': 'approved', 'dsh.approval.grant': 'once' })
    stop()
    answerApprovals(k, { kind: 'denied', reason: 'no' })
    await k.call('echo', { text: 'x' }, { callId: 'gn' })
    expect(rec.span('gn').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'approval', 'dsh.decision.plugin': 'asking-guard', 'dsh.approval.outcome': 'denied' })
  })

  it('records policy never as a denial by policy, and a guard after an approval as the guard\'s', async () => {
    await askingKernel({ approval: { policy: 'never' } })
    await k!.call('echo', { text: 'x' }, { callId: 'n1' })
    expect(rec!.span('n1').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'approval', 'dsh.approval.outcome': 'denied', 'dsh.approval.by': 'policy' })
    await k!.cleanup()
    await rec!.shutdown()
    await askingKernel()
    answerApprovals(k!, { kind: 'approved', grant: 'once' })
    await k!.call('echo', { text: 'guarded' }, { callId: 'ga' })
    // the guard refuses before anyone is asked: no approval on the span, the guard's plugin named
    expect(rec!.span('ga').attributes).toMatchObject({ 'dsh.decision': 'deny', 'dsh.decision.by': 'guard', 'dsh.decision.plugin': 'asker', 'error.type': 'DENIED' })
    expect(rec!.span('ga').attributes['dsh.approval.outcome']).toBeUndefined()
  })

  it('records an approved escalation of the sandbox mode', async () => {
    rec = recordSpans()
    k = tracked(await createTestKernel({ plugins: { otel: {} } }))
    k.ctx.plugin({
      name: 'escalate',
      inject: ['tools'],
      apply(ctx: Context) {
        otelTestTools(ctx)
        ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'echo' ? { kind: 'ask', sandboxMode: 'workspace-write' } : next()))
      },
    })
    answerApprovals(k, (request) => ({ kind: 'approved', grant: 'once', sandboxMode: request.sandboxMode }))
    await k.call('echo', { text: 'x' }, { callId: 'e1' })
    expect(rec.span('e1').attributes).toMatchObject({ 'dsh.approval.outcome': 'approved', 'dsh.approval.sandbox_mode': 'workspace-write' })
  })
})
