/**
 * When the server tells the kernel it is idle (`tools/idle`): once the kernel is up and the client
 * has listed the tools, and before any call arrived — the time a client's model takes to choose
 * its first call. The listeners load and compile ahead what that call would otherwise wait for (the
 * shell grammar, the argument checks); none decides, allows or runs anything, and a call that
 * arrives meanwhile turns `idle()` false, so they stop between steps.
 */
import type { McpKernel } from './kernel-handle.js'

export class IdleSignal {
  private kernel: McpKernel | undefined
  private listed = false
  private called = false
  private told = false

  constructor(private readonly closing: AbortSignal, private readonly onError: (error: unknown) => void) {}

  /** the kernel is up, its listeners applied */
  up(kernel: McpKernel): void {
    this.kernel = kernel
    this.tell()
  }

  /** a `tools/list` was answered */
  listedTools(): void {
    this.listed = true
    this.tell()
  }

  /** a call arrived (before or after the kernel was up) */
  callArrived(): void {
    this.called = true
  }

  private readonly idle = (): boolean => !this.called && !this.closing.aborted

  private tell(): void {
    const kernel = this.kernel
    if (this.told || !kernel || !this.listed || !this.idle()) return
    this.told = true
    // Why on the next turn: the tools/list answer (or the kernel's own start) goes out first
    setImmediate(() => {
      if (!this.idle()) return
      // a listener that throws loses its own head start, nothing else: the call still does the work
      try {
        kernel.ctx.emit('tools/idle', this.idle)
      } catch (error) {
        this.onError(error)
      }
    }).unref()
  }
}
