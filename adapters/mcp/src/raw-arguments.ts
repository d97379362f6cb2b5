/**
 * The arguments of a `tools/call` as the client sent them, where the SDK's
 * own parse would change them: zod rebuilds `params.arguments` by assigning
 * each key, and an own `"__proto__"` key (JSON.parse makes one) re-prototypes
 * the copy instead of becoming a key — so the kernel would see arguments
 * without it, and `additionalProperties: false` could never refuse it, while
 * `"constructor"` is refused. Seen on the transport, before the SDK parses the
 * request; only calls with such a key are kept, until their handler takes them.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'

/** Calls seen but not yet handled, at most: a request the SDK refuses before its handler never takes its entry. */
const MAX_PENDING = 256

type RequestId = string | number

export class RawArguments {
  private pending = new Map<RequestId, unknown>()

  /** The arguments as sent for request `id`, when the SDK's parse would have dropped a key of them. */
  take(id: RequestId): unknown {
    const args = this.pending.get(id)
    this.pending.delete(id)
    return args
  }

  /** `transport`, with every message it delivers looked at first. */
  watch(transport: Transport): Transport {
    let inner: Transport['onmessage']
    const see: NonNullable<Transport['onmessage']> = (message, extra) => {
      const m = message as { method?: unknown; id?: unknown; params?: { arguments?: unknown } }
      const args = m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.params?.arguments : undefined
      if (args && typeof args === 'object' && Object.hasOwn(args, '__proto__')) {
        if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!)
        this.pending.set(m.id as RequestId, args)
      }
      inner?.(message, extra)
    }
    // Why a setter: the SDK's Protocol sets onmessage when it connects, and a transport delivers through it
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => (inner ? see : undefined),
      set: (fn: Transport['onmessage']) => {
        inner = fn
      },
    })
    return transport
  }
}
