/** otel: one span per tool call through `@opentelemetry/api` alone, observing only, since a tracer that throws must cost the call its span, never its outcome (its README). */
import type { Context } from 'cordis'
import { createRequire } from 'node:module'
import { trace } from '@opentelemetry/api'
import type { PreToolDecision } from '@dsh/tools'
import '@dsh/tools'
import { CallSpans, type OpenCall } from './call-spans.js'
import type { Config } from './config.js'

export const name = 'otel'

/** the instrumentation scope's version: this package's */
const VERSION: string = createRequire(import.meta.url)('../package.json').version

export function apply(ctx: Context, config: Config): void {
  // the API's proxy tracer: it finds a provider registered later, too
  const spans = new CallSpans(trace.getTracer(config.tracerName, VERSION), config)

  // first of gate 1: the span covers the gates, the approval wait, the body and gate 4
  ctx.on('tools/pre-execute', (exec, next) => {
    let call: OpenCall | undefined
    try {
      call = spans.start(exec)
    } catch {
      // the tracer failed: the call goes on without a span
    }
    const decided = next()
    if (call) watch(spans, call, decided)
    return decided
  }, true)

  ctx.on('tools/result', (exec, result, facts) => {
    guarded(() => spans.end(exec, result, facts))
  })
}

/** Gate 1's answer, seen on the side: the promise handed back is `next()`'s own. */
function watch(spans: CallSpans, call: OpenCall, decided: Promise<PreToolDecision>): void {
  try {
    decided.then(
      (decision) => guarded(() => spans.gate(call, decision)),
      () => guarded(() => spans.gate(call, undefined)),
    )
  } catch {
    // not a promise: the span just lacks gate 1's answer
  }
}

function guarded(step: () => void): void {
  try {
    step()
  } catch {
    // a failing tracer or span processor costs the span, never the call
  }
}
