/**
 * The loaded plugin set and its transactional replacement. `prepare` imports
 * every plugin and validates every config without touching the running set;
 * `apply` then replaces only what changed, while the caller holds the tool
 * barrier, so no call runs a gate under a half-applied set. If a new plugin
 * fails to start, the old set is put back.
 */
import type { Context } from 'cordis'
import { canonicalJson, describeError, KernelError } from '@dsh/kernel'
import { checkPluginConfig, checkStarted, importPlugin, type LoadedPlugin, type PluginModule } from './import-plugin.js'
import { changedCode, pluginCode, type PluginCode } from '../reload/code/plugin-code.js'
import { CodeScan, type Walked } from '../reload/code/scan.js'

export interface PreparedPlugin {
  spec: string
  plugin: PluginModule
  config: unknown
  key: string
  /** a plugin loaded from a path: its code, to tell on reload whether it changed */
  code?: PluginCode
}

export interface PlanSummary {
  added: string[]
  removed: string[]
  changed: string[]
  unchanged: string[]
}

export class PluginSet {
  private loaded = new Map<string, LoadedPlugin & { key: string; code?: PluginCode }>()
  /** the path specs imported so far */
  private imported = new Set<string>()
  /** the plugin directory trees the last prepare walked, reused while their directories are unchanged */
  private walks: ReadonlyMap<string, Walked<unknown>> = new Map()

  constructor(private ctx: Context) {}

  list(): readonly LoadedPlugin[] {
    return [...this.loaded.values()]
  }

  /** The code the plugins loaded by path run: each entry file, and the plugin's own directory where code reload walks one. */
  codePaths(): string[] {
    const paths: string[] = []
    for (const { code } of this.loaded.values()) {
      if (!code) continue
      paths.push(code.entry)
      if (code.tree.own) paths.push(code.tree.own)
    }
    return paths
  }

  /** Import and validate every plugin of `plugins`; throws naming the plugin and path. */
  async prepare(plugins: Record<string, unknown>, baseDir: string): Promise<PreparedPlugin[]> {
    const prepared: PreparedPlugin[] = []
    // one look at the disk for the whole set: plugins sharing a directory share its listing and stats
    const scan = new CodeScan(this.walks)
    for (const [spec, raw] of Object.entries(plugins)) {
      const current = this.loaded.get(spec)
      // changed code of a plugin loaded from a path is imported afresh; anything else is the module already loaded
      const changed = current?.code && changedCode(current.code, scan)
      const code = current ? (changed || current.code) : pluginCode(spec, baseDir, scan)
      // a path plugin dropped and added again may have changed meanwhile: its plain URL would give the first module
      const fresh = Boolean(changed) || (!current && code !== undefined && this.imported.has(spec))
      const plugin = current && !changed ? current.plugin : await importPlugin(spec, baseDir, fresh)
      if (code) this.imported.add(spec)
      const config = checkPluginConfig(spec, plugin, raw)
      prepared.push({ spec, plugin, config, key: canonicalJson(config), code })
    }
    this.walks = scan.walks
    return prepared
  }

  summarize(next: PreparedPlugin[]): PlanSummary {
    const nextSpecs = new Set(next.map((p) => p.spec))
    const summary: PlanSummary = { added: [], removed: [], changed: [], unchanged: [] }
    for (const spec of this.loaded.keys()) if (!nextSpecs.has(spec)) summary.removed.push(spec)
    for (const p of next) {
      const current = this.loaded.get(p.spec)
      if (!current) summary.added.push(p.spec)
      else if (current.key !== p.key || current.plugin !== p.plugin) summary.changed.push(p.spec)
      else summary.unchanged.push(p.spec)
    }
    return summary
  }

  /** Replace what changed. Synchronous plugins are swapped without yielding. */
  async apply(next: PreparedPlugin[]): Promise<PlanSummary> {
    const summary = this.summarize(next)
    const old = new Map(this.loaded)
    const replaced = [...summary.removed, ...summary.changed]
    for (const spec of replaced) {
      this.loaded.get(spec)!.fork?.dispose()
      this.loaded.delete(spec)
    }
    const started: string[] = []
    try {
      for (const p of next) {
        if (this.loaded.has(p.spec)) continue
        this.plug(p)
        started.push(p.spec)
      }
      await this.ctx.lifecycle.flush()
      for (const spec of started) {
        const entry = this.loaded.get(spec)!
        await checkStarted(spec, entry.plugin, entry.fork!, entry.code && [entry.code.entry, ...entry.code.tree.files.filter((file) => file !== entry.code!.entry)])
      }
    } catch (error) {
      // put the old set back: new forks out, replaced ones in with their old configs
      for (const spec of started) {
        this.loaded.get(spec)?.fork?.dispose()
        this.loaded.delete(spec)
      }
      for (const spec of replaced) {
        const previous = old.get(spec)!
        this.plug({ spec, plugin: previous.plugin, config: previous.config, key: previous.key, code: previous.code })
      }
      await this.ctx.lifecycle.flush().catch(() => {})
      throw KernelError.is(error) ? error : new KernelError('PLUGIN_FAILED', describeError(error), { cause: error })
    }
    // keep the configured order for inspection
    this.loaded = new Map(next.map((p) => [p.spec, this.loaded.get(p.spec)!]))
    return summary
  }

  private plug(p: PreparedPlugin): void {
    const fork = this.ctx.plugin(p.plugin as any, p.config)
    this.loaded.set(p.spec, { spec: p.spec, plugin: p.plugin, config: p.config, fork, key: p.key, code: p.code })
  }

  disposeAll(): void {
    for (const entry of this.loaded.values()) entry.fork?.dispose()
    this.loaded.clear()
  }
}
