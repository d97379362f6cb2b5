/**
 * `notifications/tools/list_changed`: sent when the tool set the client is
 * sent (`wireSchemas()`) differs from the one it was last told about — after
 * a reload, or whenever `tools/change` fires for any other reason. While a
 * reload is under way the check waits for its end, so a half-applied set is
 * never announced and one reload gives at most one notification.
 */
import { canonicalJson } from '@dsh/kernel'
import type { ToolSchema } from '@dsh/tools'

export interface ToolListNotifierOptions {
  /** the wire tool set now */
  current(): readonly ToolSchema[]
  /** send the notification */
  send(): Promise<void>
  /** whether the client is initialized (nothing is sent before) */
  ready(): boolean
  onError(error: unknown): void
}

export class ToolListNotifier {
  /** the set last announced (or the one at start), and its canonical JSON once a different list was compared with it */
  private announced: { list: readonly ToolSchema[]; key?: string }
  private holds = 0

  constructor(private options: ToolListNotifierOptions) {
    this.announced = { list: options.current() }
  }

  /** Announce the set if it changed; before the client is ready, just remember it. */
  check(): void {
    if (this.holds) return
    const list = this.options.current()
    // Why by identity first: the tool service hands out the same frozen list until its set changes,
    // so the start (construction, then the client's initialized) compares no JSON
    if (list === this.announced.list) return
    const key = canonicalJson(list)
    this.announced.key ??= canonicalJson(this.announced.list)
    if (key === this.announced.key) {
      this.announced = { list, key }
      return
    }
    this.announced = { list, key }
    if (!this.options.ready()) return
    this.options.send().catch((error) => this.options.onError(error))
  }

  /** Run `change` with announcements held until it settles. */
  async hold<T>(change: () => Promise<T>): Promise<T> {
    this.holds++
    try {
      return await change()
    } finally {
      this.holds--
      this.check()
    }
  }
}
