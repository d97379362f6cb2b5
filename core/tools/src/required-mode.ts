/**
 * The sandbox mode a call needs (`ToolDefinition.requiredMode`, DESIGN §15.3)
 * against the mode it would run under. An ask approved for a call that needs
 * more than the session's mode runs that one call with the mode it needs;
 * without an ask, such a call is refused before its body (`DENIED`, with the
 * way to allow it) instead of failing inside the tool.
 */
import { SANDBOX_MODES, type SandboxMode } from '@dsh/kernel'
import type { ToolDefinition } from './types.js'

const RANK: Record<SandboxMode, number> = { 'read-only': 0, 'workspace-write': 1, 'danger-full-access': 2 }

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value)
}

/** Whether mode `a` lets a call do more than mode `b`. */
export function modeAbove(a: SandboxMode, b: SandboxMode): boolean {
  return RANK[a] > RANK[b]
}

/** What allowing a call under `mode` lets it do, for approvers to show. */
export function describeModeGrant(mode: SandboxMode): string {
  if (mode === 'workspace-write') return 'write inside the workspace'
  if (mode === 'danger-full-access') return 'run without any sandbox: read, write and reach the network anywhere'
  return 'read only'
}

export type RequiredMode = { mode?: SandboxMode } | { problem: string }

/** The mode these arguments need; a `requiredMode` that throws or answers something else is a problem (the call is refused). */
export function requiredModeOf(def: Pick<ToolDefinition, 'name' | 'requiredMode'>, args: unknown): RequiredMode {
  const declared = def.requiredMode
  if (declared === undefined) return {}
  let mode: unknown
  try {
    mode = typeof declared === 'function' ? declared(args as any) : declared
  } catch (error) {
    return { problem: `the requiredMode of ${def.name} failed: ${(error as Error)?.message ?? String(error)}` }
  }
  if (mode === undefined) return {}
  if (!isSandboxMode(mode)) return { problem: `the requiredMode of ${def.name} answered ${JSON.stringify(mode) ?? String(mode)}, not a sandbox mode` }
  return { mode }
}
