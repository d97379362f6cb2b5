/**
 * Loaded plugins and their status. The kernel's list (what its config loaded,
 * with the spec it was named by) comes first, in config order; then every
 * other plugin and service plugged on the context, from cordis's registry.
 */
import { Context, Service } from 'cordis'
import { describeError, ownerName } from '@dsh/kernel'
import { jsonSafe } from './json-safe.js'
import type { LoadedPluginLike, PluginDirectory, PluginInfo, PluginStatus, SnapshotOptions } from './types.js'

/** What is read of a cordis scope (`ForkScope` / `MainScope`); `hasError` is protected in cordis's types. */
interface ScopeLike {
  uid: number | null
  status: number
  hasError?: boolean
  error?: unknown
  config?: unknown
  /** the context the plugin was plugged on */
  parent?: Context
  runtime?: ScopeLike & { name?: string; plugin?: unknown; children?: ScopeLike[] }
}

/** The plugin a fork was plugged from, by name; null for the root. */
function parentOf(fork: ScopeLike | undefined): string | null {
  if (!fork?.parent) return null
  const name = ownerName(fork.parent)
  return name === 'root' ? null : name
}

// cordis's ScopeStatus (a const enum in its typings): PENDING, LOADING, ACTIVE, FAILED, DISPOSED
const STATUS: readonly PluginStatus[] = ['pending', 'loading', 'active', 'failed', 'disposed']

/** The status of a fork; an apply that threw is recorded on the runtime, so it counts too. */
export function scopeStatus(scope: ScopeLike | undefined): { status: PluginStatus; error?: string } {
  if (!scope || scope.uid === null) return { status: 'disposed' }
  const runtime = scope.runtime
  if (scope.hasError || runtime?.hasError || scope.status === 3) {
    const error = scope.error ?? runtime?.error
    return error === undefined ? { status: 'failed' } : { status: 'failed', error: describeError(error) }
  }
  return { status: STATUS[scope.status] ?? 'pending' }
}

/** A class extending cordis's Service (walked by hand: cordis's own `instanceof` hook throws on some chains). */
function isService(plugin: unknown): boolean {
  for (let c: unknown = plugin; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    if (c === Service) return true
  }
  return false
}

function pluginName(plugin: LoadedPluginLike['plugin'], fallback: string): string {
  const name = (plugin as { name?: unknown })?.name
  return typeof name === 'string' && name ? name : fallback
}

function directoryList(ctx: Context, options: SnapshotOptions): readonly LoadedPluginLike[] {
  if (options.plugins) return options.plugins()
  const directory = ctx.root.get('dsh') as PluginDirectory | undefined
  return typeof directory?.plugins === 'function' ? directory.plugins() : []
}

export function collectPlugins(ctx: Context, options: SnapshotOptions = {}): PluginInfo[] {
  const out: PluginInfo[] = []
  const known = new Set<unknown>()
  for (const loaded of directoryList(ctx, options)) {
    const fork = loaded.fork as ScopeLike | undefined
    if (fork) known.add(fork)
    out.push({
      name: pluginName(loaded.plugin, loaded.spec),
      spec: loaded.spec,
      source: 'config',
      kind: 'plugin',
      parent: parentOf(fork),
      ...scopeStatus(fork),
      config: jsonSafe(loaded.config),
    })
  }
  const registry = ctx.registry as unknown as { values(): Iterable<ScopeLike & { name?: string; plugin?: unknown; children: ScopeLike[] }> }
  for (const runtime of registry.values()) {
    // the root's own runtime has no plugin
    if (!runtime.plugin) continue
    for (const fork of runtime.children) {
      if (known.has(fork)) continue
      out.push({
        name: runtime.name || pluginName(runtime.plugin as LoadedPluginLike['plugin'], '(anonymous)'),
        spec: null,
        source: 'host',
        // a Service subclass, or a plugin that provides the service of its own name (cordis's logger, timer)
        kind: isService(runtime.plugin) || (!!runtime.name && ctx.root.get(runtime.name) !== undefined) ? 'service' : 'plugin',
        parent: parentOf(fork),
        ...scopeStatus(fork),
        config: jsonSafe(fork.config),
      })
    }
  }
  return out
}
