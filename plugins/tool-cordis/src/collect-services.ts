/**
 * Prompt sections, the sandbox and approval, each from its service's read-only
 * views. Each service is optional: a missing one is `null` (or an empty list),
 * never an error. Only getters that report are called — `sandbox.status()`
 * reports what probing found so far and never probes.
 */
import type { Context } from 'cordis'
import { describeError } from '@dsh/kernel'
import { ownerName } from '@dsh/kernel'
import { jsonSafe } from './json-safe.js'
import type { ApprovalInfo, ProbeInfo, PromptSectionInfo, SandboxInfo } from './types.js'

/** What the snapshot reads of `systemPrompt` (structural: the services are optional peers). */
interface PromptView {
  sections(): Array<{ id: string; order: number; text: string }>
  owners(): Array<{ id: string; owner: Context }>
}

interface SandboxView {
  defaults?: { mode: string; workspace: string; network: string | { allow: readonly string[]; deny?: readonly string[] }; allowedRoots: readonly string[] }
  status(): {
    chosen?: string
    candidates: Array<{ name: string; source: string; platforms: readonly string[]; probe?: { available: boolean; reason?: string; path?: string; details?: unknown } }>
  }
}

interface ApprovalView {
  settings?: { policy: string; timeoutMs?: number; preset?: string }
  presets?(): ReadonlyArray<{ name: string; policy: string; sandboxMode: string }>
}

/** The service as this plugin reads it, or undefined when it is not running. */
export function service<T extends object>(ctx: Context, name: string): T | undefined {
  const value = ctx.root.get(name) as T | undefined
  return value && typeof value === 'object' ? value : undefined
}

/**
 * `guidance`: `tool:<name>` → the plugin that registered tool <name>. The tools
 * service adds a tool's `prompt` as section `tool:<name>` through the root
 * context, so the prompt service records the root as its owner; the section
 * belongs to the tool's plugin (it goes away with the tool).
 */
export function collectPrompt(ctx: Context, guidance: ReadonlyMap<string, string> = new Map()): PromptSectionInfo[] {
  const prompt = service<PromptView>(ctx, 'systemPrompt')
  if (!prompt) return []
  const owners = new Map(prompt.owners().map(({ id, owner }) => [id, guidance.get(id) ?? ownerName(owner)]))
  let sections: Array<{ id: string; order: number; text: string }>
  try {
    sections = prompt.sections()
  } catch (error) {
    // a section whose text function throws: still list who added what
    const message = describeError(error)
    return [...owners].map(([id, owner]) => ({ id, owner, order: null, chars: null, error: message }))
  }
  return sections.map((section) => ({
    id: section.id,
    owner: owners.get(section.id) ?? 'root',
    order: section.order,
    chars: typeof section.text === 'string' ? section.text.length : null,
  }))
}

function probeInfo(probe: { available: boolean; reason?: string; path?: string; details?: unknown } | undefined): ProbeInfo | null {
  if (!probe) return null
  return {
    available: probe.available === true,
    reason: typeof probe.reason === 'string' ? probe.reason : null,
    path: typeof probe.path === 'string' ? probe.path : null,
    details: probe.details === undefined ? null : jsonSafe(probe.details),
  }
}

/** `off`, `on`, or the host patterns (`hosts a.example, *.b.example except c.b.example`). */
function networkLabel(network: NonNullable<SandboxView['defaults']>['network']): string {
  if (typeof network === 'string') return network
  const deny = network.deny?.length ? ` except ${network.deny.join(', ')}` : ''
  return `hosts ${network.allow.length ? network.allow.join(', ') : '(none)'}${deny}`
}

export function collectSandbox(ctx: Context): SandboxInfo | null {
  const sandbox = service<SandboxView>(ctx, 'sandbox')
  if (!sandbox || typeof sandbox.status !== 'function') return null
  const status = sandbox.status()
  const d = sandbox.defaults
  return {
    chosen: status.chosen ?? null,
    defaults: d ? { mode: d.mode, workspace: d.workspace, network: networkLabel(d.network), allowedRoots: [...d.allowedRoots] } : null,
    candidates: status.candidates.map((candidate) => ({
      name: candidate.name,
      source: candidate.source,
      platforms: [...candidate.platforms],
      runsHere: candidate.platforms.includes(process.platform),
      probe: probeInfo(candidate.probe),
    })),
  }
}

export function collectApproval(ctx: Context): ApprovalInfo | null {
  const approval = service<ApprovalView>(ctx, 'approval')
  const settings = approval?.settings
  if (!approval || !settings) return null
  const presets = typeof approval.presets === 'function' ? approval.presets() : []
  return {
    policy: settings.policy,
    timeoutMs: settings.timeoutMs ?? null,
    preset: settings.preset ?? null,
    presets: presets.map((p) => ({ name: p.name, policy: p.policy, sandboxMode: p.sandboxMode })),
  }
}
