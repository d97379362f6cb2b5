/**
 * `loadPlugin(ctx, plugin, config?)`: plug a plugin the way the kernel plugs a
 * configured one. `ctx.plugin(plugin, badConfig)` does not throw (cordis logs
 * and returns a failed fork) and keeps unknown keys; this checks first, waits
 * until the plugin is active, and leaves nothing plugged when it is not.
 */
import type { Context, ForkScope } from 'cordis'
import { checkPluginConfig, checkStarted, type PluginModule } from './import-plugin.js'

type Pluggable = PluginModule | ((ctx: Context, config: any) => void | Promise<void>)

/** The name a plugin goes by in messages: its `name`, else "an anonymous plugin". */
function labelOf(plugin: Pluggable): string {
  const name = (plugin as { name?: unknown })?.name
  return typeof name === 'string' && name ? name : 'an anonymous plugin'
}

/**
 * Validate `config` against the plugin's `Config` (unknown keys refused), plug it, and resolve with
 * its fork once it is active. A bad config rejects with `INVALID_CONFIG` naming the plugin and the
 * key path; an apply that throws, or a required service that is missing, rejects with
 * `PLUGIN_FAILED`, and the fork is disposed.
 */
export async function loadPlugin(ctx: Context, plugin: Pluggable, config?: unknown): Promise<ForkScope> {
  const label = labelOf(plugin)
  const module = plugin as PluginModule
  const checked = checkPluginConfig(label, module, config)
  const fork = ctx.plugin(plugin as any, checked)
  await ctx.lifecycle.flush()
  try {
    await checkStarted(label, module, fork)
  } catch (error) {
    // a plugin that is not active must not stay plugged, half registered or waiting to start later
    fork.dispose()
    throw error
  }
  return fork
}
