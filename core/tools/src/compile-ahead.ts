/**
 * The argument checks compiled while the host is idle (`tools/idle`): a tool's first call would
 * otherwise load Ajv and compile its schema (5–15 ms) before anything else it does. One check per
 * turn of the event loop, stopping once a call arrives; a check compiled here is the one the call
 * gets (`Registry.checkOf` keeps it with the tool). Nothing is validated, decided or run.
 */
import type { Registry, ToolEntry } from './registry.js'

export function compileAhead(registry: Registry, idle: () => boolean): void {
  // the tools a model calls directly: under code mode that is only the transport
  const entries: ToolEntry[] = [...registry.tools.values()].filter((entry) => registry.resolveExecution(entry.def.name, false) === entry)
  const step = (i: number): void => {
    if (i >= entries.length || !idle()) return
    registry.checkOf(entries[i])
    setImmediate(step, i + 1).unref()
  }
  setImmediate(step, 0).unref()
}
