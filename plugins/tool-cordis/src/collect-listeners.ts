/**
 * Listeners per event, read straight from cordis's hook table (`hookTable`:
 * `{ ctx, callback, prepend, global }` in call order). Nothing is composed or
 * cached here: the kernel's own listener lists are left as they are.
 */
import type { Context } from 'cordis'
import { hookTable, ownerName, unwrapListener } from '@dsh/kernel'
import { functionName } from './collect-tools.js'
import type { ListenerGroup } from './types.js'

/** The middleware events the kernel composes with `ctx.waterfall`, shown first and always. */
export const WATERFALLS = ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'approval/request', 'system-prompt/assemble'] as const
/** Shown after the waterfalls, always. */
const ALWAYS_SHOWN = ['tools/result'] as const

export function collectListeners(ctx: Context): ListenerGroup[] {
  const table = hookTable(ctx)
  const fixed: readonly string[] = [...WATERFALLS, ...ALWAYS_SHOWN]
  // cordis's own bookkeeping events are named internal/*; everything else a plugin listens to is shown
  const others = Object.keys(table)
    .filter((name) => !name.startsWith('internal/') && !fixed.includes(name) && (table[name]?.length ?? 0) > 0)
    .sort()
  return [...fixed, ...others].map((event) => ({
    event,
    kind: (WATERFALLS as readonly string[]).includes(event) ? 'waterfall' as const : 'event' as const,
    listeners: (Object.hasOwn(table, event) ? table[event] ?? [] : []).map((hook, index) => ({
      order: index + 1,
      owner: ownerName(hook.ctx),
      prepend: hook.prepend === true,
      global: hook.global === true,
      function: typeof hook.callback === 'function' ? functionName(unwrapListener(hook.callback as (...args: any[]) => any)) : null,
    })),
  }))
}
