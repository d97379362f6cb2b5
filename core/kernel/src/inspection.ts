/**
 * Who registered what, as plain data: the listeners of each event with the plugin that owns them,
 * in call order. Public (the inspection plugin and any third party use it); it reads cordis's hook
 * table through cordis-internals.ts and hands out none of cordis's own objects.
 */
import type { Context } from 'cordis'
import { hookTable, ownerName, unwrapListener } from './cordis-internals.js'

export { ownerName }

export interface ListenerInfo {
  /** the plugin that registered it (its cordis name; `root` for the host) */
  owner: string
  prepend: boolean
  global: boolean
  /** the function it was registered with */
  callback: (...args: any[]) => any
}

/** Every event with listeners now → its listeners in call order. */
export function listenerTable(ctx: Context): Map<string, ListenerInfo[]> {
  const table = hookTable(ctx)
  const out = new Map<string, ListenerInfo[]>()
  for (const event of Object.keys(table)) {
    const hooks = table[event]
    if (!hooks?.length) continue
    out.set(event, hooks.map((hook) => ({
      owner: ownerName(hook.ctx),
      prepend: hook.prepend === true,
      global: hook.global === true,
      callback: unwrapListener(hook.callback),
    })))
  }
  return out
}
