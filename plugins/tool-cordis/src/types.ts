/**
 * The shape of a registry snapshot: plain JSON (no `undefined`, no class
 * instances), so it can be printed, sent to a model, or compared.
 */
import type { JsonValue } from '@dsh/kernel'

export const SECTIONS = ['tools', 'listeners', 'guards', 'prompt', 'sandbox', 'approval', 'plugins'] as const
export type SectionName = typeof SECTIONS[number]

export interface ToolInfo {
  name: string
  /** the plugin that registered it (the nearest named plugin of its context) */
  owner: string
  description: string
  /** `run_code`, the code-mode transport */
  reserved: boolean
  /** whether `wireSchemas()` lists it under each mode */
  visibility: { native: boolean; code: boolean; both: boolean }
  /** whether it is listed by `wireSchemas()` now, under the current mode */
  wired: boolean
  /** callable from a `run_code` program (`tools.<name>(args)`) */
  sdk: boolean
  /** `dynamic` when a classifier decides per call; `exclusive` when undeclared */
  concurrency: 'parallel' | 'exclusive' | 'dynamic'
  timeoutMs: number | null
  hasPrompt: boolean
  hasFinalizer: boolean
}

export interface ListenerInfo {
  /** 1-based call order */
  order: number
  owner: string
  prepend: boolean
  global: boolean
  /** the listener function's name, when it has one */
  function: string | null
}

export interface ListenerGroup {
  event: string
  /** `waterfall` for the middleware events the kernel composes, `event` otherwise */
  kind: 'waterfall' | 'event'
  listeners: ListenerInfo[]
}

export interface GuardInfo {
  order: number
  owner: string
  function: string | null
  /** what results' `error.source.detail` calls it: the function's name, else `#n` among its owner's guards */
  name: string
}

export interface PromptSectionInfo {
  id: string
  owner: string
  order: number | null
  /** length of the section's text; null when its text could not be produced */
  chars: number | null
  error?: string
}

export interface ProbeInfo {
  available: boolean
  reason: string | null
  path: string | null
  details: JsonValue
}

export interface SandboxCandidateInfo {
  name: string
  source: string
  platforms: string[]
  /** whether it runs on this platform at all */
  runsHere: boolean
  /** null until the candidate is probed (probes run on first use, or `dsh inspect`) */
  probe: ProbeInfo | null
}

export interface SandboxInfo {
  /** the backend `confine` uses; null until a probe found one */
  chosen: string | null
  defaults: { mode: string; workspace: string; network: string; allowedRoots: string[] } | null
  candidates: SandboxCandidateInfo[]
}

export interface ApprovalInfo {
  policy: string
  timeoutMs: number | null
  preset: string | null
  presets: Array<{ name: string; policy: string; sandboxMode: string }>
}

export type PluginStatus = 'pending' | 'loading' | 'active' | 'failed' | 'disposed'

export interface PluginInfo {
  /** the plugin's name (what `owner` fields say) */
  name: string
  /** how the config named it (short name, package or path); null when not loaded from the config */
  spec: string | null
  /** `config`: loaded by the kernel from its plugin map; `host`: plugged directly on the context */
  source: 'config' | 'host'
  kind: 'plugin' | 'service'
  /** the plugin it was plugged from (its `ctx.plugin(...)` caller); null when plugged on the root */
  parent: string | null
  status: PluginStatus
  /** the validated config, JSON-safe, with secret-looking keys redacted */
  config: JsonValue
  error?: string
}

export interface RegistrySnapshot {
  /** the tools service's mode; null without a tools service */
  mode: 'native' | 'code' | 'both' | null
  tools: ToolInfo[]
  listeners: ListenerGroup[]
  guards: GuardInfo[]
  prompt: PromptSectionInfo[]
  /** null without a sandbox service */
  sandbox: SandboxInfo | null
  /** null without an approval service */
  approval: ApprovalInfo | null
  plugins: PluginInfo[]
}

/** What the kernel reports about one plugin it loaded from its config. */
export interface LoadedPluginLike {
  spec: string
  plugin: { name?: string } | ((...args: any[]) => any)
  config: unknown
  fork?: object
}

/** The read-only accessor the `dsh` kernel sets on its root context (`ctx.get('dsh')`). */
export interface PluginDirectory {
  plugins(): readonly LoadedPluginLike[]
}

export interface SnapshotOptions {
  /** the loaded plugin list (default: `ctx.get('dsh')?.plugins()`) */
  plugins?: () => readonly LoadedPluginLike[]
}

export interface SnapshotFilter {
  section?: SectionName
  /** keep entries whose name (tool, event, section id, plugin, backend) or owner equals this */
  name?: string
}
