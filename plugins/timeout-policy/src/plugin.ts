/**
 * timeout-policy: a `tools/execute` wrapper that gives a call a deadline.
 *
 * The limit of a call is, first found: the configured per-tool limit, the
 * `timeoutMs` the tool declares, the configured `defaultMs`. A call without a
 * limit goes straight on (`next()`, no timer, no signal). A running call keeps
 * the deadline it started with even if the plugin is disposed meanwhile — the
 * pipeline runs a call with the listeners it started with — and its timer is
 * cleared when it settles.
 */
import type { Context } from 'cordis'
import type { Execution, ToolService } from '@dsh/tools'
import { MAX_TIMEOUT_MS, type Config } from './config.js'
import { withDeadline } from './deadline.js'

export const name = 'timeout-policy'
/** `tools`: the definitions whose `timeoutMs` it reads, and the pipeline it wraps */
export const inject = ['tools']

export function apply(ctx: Context, config: Config): void {
  // read once: the per-call lookup goes through the service as this plugin sees it, not through the context
  const tools: ToolService = ctx.tools
  // a Map, not the config object: a tool named "constructor" must not find Object's
  const overrides = new Map(Object.entries(config.tools ?? {}))
  const defaultMs = config.defaultMs

  const limitOf = (exec: Execution): number | undefined => {
    const ms = (overrides.size ? overrides.get(exec.name) : undefined)
      ?? tools.get(exec.name, exec.scope)?.timeoutMs
      ?? defaultMs
    // a declared limit beyond setTimeout's range would fire at once: cap it instead
    return ms === undefined ? undefined : Math.min(ms, MAX_TIMEOUT_MS)
  }

  ctx.on('tools/execute', (exec, next) => {
    const ms = limitOf(exec)
    if (ms === undefined) return next()
    return withDeadline(exec.name, ms, next)
  })
}
