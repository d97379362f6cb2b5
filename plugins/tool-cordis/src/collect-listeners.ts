/**
 * Listeners per event, in call order, from the kernel's public `listenerTable`
 * (owner, prepend, global, the function registered). Nothing is composed or
 * cached here: the kernel's own listener lists are left as they are.
 */
import type { Context } from 'cordis'
import { listenerTable } from '@dsh/kernel'
import { functionName } from './collect-tools.js'
import type { ListenerGroup } from './types.js'

/** The middleware events the kernel composes with `ctx.waterfall`, shown first and always. */
export const WATERFALLS = ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'approval/request', 'system-prompt/assemble'] as const
/** Shown after the waterfalls, always. */
const ALWAYS_SHOWN = ['tools/result'] as const

export function collectListeners(ctx: Context): ListenerGroup[] {
  const table = listenerTable(ctx)
  const fixed: readonly string[] = [...WATERFALLS, ...ALWAYS_SHOWN]
  // cordis's own bookkeeping events are named internal/*; everything else a plugin listens to is shown
  const others = [...table.keys()].filter((name) => !name.startsWith('internal/') && !fixed.includes(name)).sort()
  return [...fixed, ...others].map((event) => ({
    event,
    kind: (WATERFALLS as readonly string[]).includes(event) ? 'waterfall' as const : 'event' as const,
    listeners: (table.get(event) ?? []).map((listener, index) => ({
      order: index + 1,
      owner: listener.owner,
      prepend: listener.prepend,
      global: listener.global,
      function: typeof listener.callback === 'function' ? functionName(listener.callback) : null,
    })),
  }))
}
