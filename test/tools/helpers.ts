import type { Context } from 'cordis'
import type { TestKernel } from 'dsh/testing'

/** Run `apply` as a plugin of the test kernel (so everything it adds is scoped). */
export function plugin(k: TestKernel, name: string, apply: (ctx: Context) => void) {
  return k.ctx.plugin({ name, inject: ['tools'], apply })
}

/** The session events of one call, by type. */
export function eventsOf(k: TestKernel, callId: string) {
  return k.session.events().filter((e) => (e.data as any)?.callId === callId)
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej })
  return { promise, resolve, reject }
}
