/**
 * Resolving and loading plugins: a bundled short name (`timeout-policy` →
 * `@dsh/timeout-policy`), a package name, or a path. Every config is checked
 * against the plugin's schemastery `Config` before the plugin is plugged, and
 * a plugin that fails or stays pending (a missing service) is reported.
 */
import type { Context, ForkScope } from 'cordis'
import { createRequire } from 'node:module'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describeError, KernelError, rejectUnknownKeys } from '@dsh/kernel'
import type Schema from 'schemastery'
import { problemPath } from '../config/excerpt.js'
import { whyNotLoadable } from './not-found.js'
import { freshUrl } from '../reload/code/hooks.js'
import { bundledLoader, ensureSharedHooks } from '../bundle/state.js'
import { checkPluginCode } from '../config/read-loaded.js'
import { formatLocated, loadLocation } from './load-location.js'
import { codeTree } from '../reload/code/code-tree.js'

export const BUNDLED = ['timeout-policy', 'repeat-tool-reminder', 'hooks-claude-code', 'spill-policy', 'ui-approval', 'workspace-tools', 'tool-cordis', 'otel', 'claude-code-permissions', 'mcp-servers'] as const

export interface PluginModule {
  name?: string
  inject?: unknown
  Config?: Schema
  apply?: (ctx: Context, config: any) => void | Promise<void>
  [key: string]: unknown
}

export interface LoadedPlugin {
  spec: string
  plugin: PluginModule
  config: unknown
  fork?: ForkScope
}

const require = createRequire(import.meta.url)

/**
 * Where a plugin spec points: an absolute file URL, or the package name to import from here (what
 * `require.resolve` cannot find above `baseDir`, such as a package whose exports are ESM-only, may
 * still be importable as a dependency of dsh); `problem` is why it did not resolve above `baseDir`.
 */
export function resolveSpec(spec: string, baseDir: string): { url: string; problem?: unknown } {
  if (spec.startsWith('.') || isAbsolute(spec)) return { url: pathToFileURL(resolve(baseDir, spec)).href }
  const name = (BUNDLED as readonly string[]).includes(spec) ? `@dsh/${spec}` : spec
  try {
    return { url: pathToFileURL(require.resolve(name, { paths: [baseDir, process.cwd()] })).href }
  } catch (problem) {
    return { url: name, problem }
  }
}

/** Import a plugin; `fresh` (a path spec only) evaluates its code again, as a reload of changed code does. */
export async function importPlugin(spec: string, baseDir: string, fresh = false): Promise<PluginModule> {
  let mod: any
  // run from the bundle, a bundled plugin is the bundle's own module
  const bundled = fresh ? undefined : bundledLoader(spec)
  const resolved = bundled ? undefined : resolveSpec(spec, baseDir)
  const problem = resolved?.problem
  // Why before the import: a path plugin's code is a protected entry a killed call may have left changed
  if (resolved && (spec.startsWith('.') || isAbsolute(spec))) checkPluginCode(spec, fileURLToPath(resolved.url))
  try {
    if (bundled) mod = await bundled()
    else {
      ensureSharedHooks()
      mod = await import(fresh ? freshUrl(resolved!.url) : resolved!.url)
    }
  } catch (error) {
    const located = resolved && !problem ? await locate(error, resolved.url, baseDir) : undefined
    const why = located ? formatLocated(located, describeError(error)) : whyNotLoadable(spec, baseDir, BUNDLED, problem ?? error)
    throw new KernelError('PLUGIN_FAILED', `plugin ${spec} cannot be loaded: ${why}`, { cause: error, details: { plugin: spec } })
  }
  const plugin = typeof mod?.apply === 'function' ? mod : mod?.default
  if (!plugin || (typeof plugin !== 'function' && typeof plugin.apply !== 'function')) {
    throw new KernelError('PLUGIN_FAILED', `plugin ${spec} exports no apply function or plugin class`, { details: { plugin: spec } })
  }
  return plugin
}

/** Where in the plugin's own files (entry first) an import failed, if in one of them. */
async function locate(error: unknown, url: string, baseDir: string) {
  if (!url.startsWith('file:')) return undefined
  try {
    const entry = fileURLToPath(url)
    const files = [entry, ...codeTree(entry, baseDir).files.filter((file) => file !== entry)]
    return await loadLocation(error, files)
  } catch {
    // Why: placing the error is a help; failing to is no reason to hide the error itself
    return undefined
  }
}

/** Check a config against the plugin's Config; the error names the plugin and the path. */
export function checkPluginConfig(spec: string, plugin: PluginModule, config: unknown): unknown {
  const schema = plugin.Config
  if (!schema) return config ?? {}
  try {
    rejectUnknownKeys(schema, config, '')
    return schema(config ?? {})
  } catch (error) {
    const message = describeError(error)
    throw new KernelError('INVALID_CONFIG', `plugin ${spec}: ${message}`, { cause: error, details: { plugin: spec, path: problemPath(error, message).join('.') } })
  }
}

/**
 * The services a plugin cannot start without, from any of cordis's `inject`
 * forms: `['a', 'b']`, `{ required: [...], optional: [...] }`, or
 * `{ a: { required: true }, b: { required: false } }`.
 */
export function requiredServices(inject: unknown): string[] {
  if (Array.isArray(inject)) return inject.filter((name): name is string => typeof name === 'string')
  if (!inject || typeof inject !== 'object') return []
  const record = inject as Record<string, unknown>
  if (Array.isArray(record.required) || Array.isArray(record.optional)) {
    return Array.isArray(record.required) ? record.required.filter((name): name is string => typeof name === 'string') : []
  }
  return Object.keys(record).filter((name) => (record[name] as { required?: boolean } | undefined)?.required !== false)
}

/**
 * After plugging: a plugin that failed or waits for a missing service is an error; `files` (a path
 * plugin's code, its entry first) place a throwing `apply` in them.
 */
export async function checkStarted(spec: string, plugin: PluginModule, fork: ForkScope, files?: readonly string[]): Promise<void> {
  const scope = fork as any
  // cordis 3.18 records a throwing (or rejecting) apply on the runtime, not the fork
  const error = scope.error ?? scope.runtime?.error
  if (error || scope.hasError || scope.runtime?.hasError) {
    const located = files ? await loadLocation(error, files) : undefined
    const why = located ? formatLocated(located, describeError(error)) : describeError(error)
    throw new KernelError('PLUGIN_FAILED', `plugin ${spec} failed to start: ${why}`, { cause: error, details: { plugin: spec } })
  }
  if (!scope.isActive && !scope.runtime?.isActive) {
    const missing = requiredServices(plugin.inject).filter((name) => !scope.ctx?.get(name))
    throw new KernelError('PLUGIN_FAILED', `plugin ${spec} is waiting for ${missing.length ? `service(s) ${missing.join(', ')}` : 'a service'} that is not running`, { details: { plugin: spec, missing } })
  }
}
