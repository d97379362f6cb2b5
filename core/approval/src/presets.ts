/**
 * Presets: named bundles of the two standing knobs, approval policy × sandbox
 * mode, named after Codex's where they fit (its "Read Only", "Auto" and "Full
 * Access"; `workspace-write` is accepted for `auto`, as Codex's `--full-auto`
 * is workspace-write with on-request approval).
 */
import { KernelError } from '@dsh/kernel'
import type { SandboxMode } from '@dsh/kernel'
import type { ApprovalPolicy } from './events.js'

export interface ApprovalPreset {
  readonly name: string
  readonly policy: ApprovalPolicy
  readonly sandboxMode: SandboxMode
  readonly description: string
}

const table: ReadonlyArray<ApprovalPreset> = [
  { name: 'read-only', policy: 'ask', sandboxMode: 'read-only', description: 'commands read the machine; anything a listener flags is asked' },
  { name: 'auto', policy: 'ask', sandboxMode: 'workspace-write', description: 'commands write inside the workspace; anything a listener flags is asked' },
  { name: 'workspace-write', policy: 'ask', sandboxMode: 'workspace-write', description: 'the same as auto' },
  { name: 'full-access', policy: 'never', sandboxMode: 'danger-full-access', description: 'no confinement and nobody is asked: anything a listener flags is denied' },
]

// a Map, not an object: preset names come from config files and hosts
const presets = new Map(table.map((preset) => [preset.name, Object.freeze(preset)]))

/** Every preset, in a stable order. */
export function presetList(): readonly ApprovalPreset[] {
  return [...presets.values()]
}

/** The preset named `name`; INVALID_CONFIG naming `where` and the known names otherwise. */
export function getPreset(name: unknown, where = 'approval.preset'): ApprovalPreset {
  const preset = typeof name === 'string' ? presets.get(name) : undefined
  if (!preset) {
    throw new KernelError('INVALID_CONFIG', `${where}: unknown preset ${JSON.stringify(name)}; known presets: ${[...presets.keys()].join(', ')}`, {
      details: { path: where, value: name },
    })
  }
  return preset
}

/** The shape of the options a preset fills in (`createKernel` options have it). */
export interface PresetTarget {
  approval?: { policy?: ApprovalPolicy; preset?: string; timeoutMs?: number }
  sandbox?: { mode?: SandboxMode; [key: string]: unknown }
}

/**
 * Resolve `approval.preset` into the two knobs. Keys set explicitly win over
 * the preset: `{ preset: 'full-access', policy: 'ask' }` is danger-full-access
 * with ask. Returns a new object; without a preset, the same one.
 */
export function applyPreset<T extends PresetTarget>(options: T): T {
  const name = options.approval?.preset
  if (name === undefined) return options
  const preset = getPreset(name)
  return {
    ...options,
    approval: { ...options.approval, policy: options.approval?.policy ?? preset.policy },
    sandbox: { ...options.sandbox, mode: options.sandbox?.mode ?? preset.sandboxMode },
  }
}
