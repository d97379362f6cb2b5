/**
 * The kernels a test file makes through `createKernel`, disposed after each test (then the file's
 * temp dirs removed: what used them has stopped), and a turn to call tools in.
 */
import { afterEach } from 'vitest'
import type { Kernel } from 'dsh'

/** A list the file pushes its kernels to; each is disposed after every test, then `dirs` are removed. */
export function kernelsDisposedAfterEach(dirs?: { removeAll(): void }): Kernel[] {
  const kernels: Kernel[] = []
  afterEach(async () => {
    for (const kernel of kernels.splice(0)) await kernel.dispose()
    dirs?.removeAll()
  })
  return kernels
}

/** A new session of `kernel` in an open turn, and a function calling a tool in it (call ids `<prefix><n>`). */
export function turnOf(kernel: Kernel, prefix = 'c'): (name: string, args: object) => ReturnType<Kernel['execute']> {
  const session = kernel.openSession()
  session.beginTurn()
  let n = 0
  return (name, args) => kernel.execute({ callId: `${prefix}${++n}`, name, arguments: args, session })
}
