/**
 * The approval service's config: policy, timeout and preset, checked at the
 * boundary with the bad value and its key in the message.
 */
import Schema from 'schemastery'
import { KernelError, rejectUnknownKeys, MAX_TIMER_MS } from '@dsh/kernel'
import type { ApprovalPolicy } from './events.js'
import { getPreset } from './presets.js'

export interface ApprovalConfig {
  /** `ask` (default) consults the approval/request listeners; `never` denies every request */
  policy?: ApprovalPolicy
  /** how long a request waits for an answer (default 600000 ms = 10 minutes) */
  timeoutMs?: number
  /** a preset name; its policy applies when `policy` is not set */
  preset?: string
}

export interface ResolvedApprovalConfig {
  policy: ApprovalPolicy
  timeoutMs: number
  preset?: string
}

export const DEFAULT_TIMEOUT_MS = 600_000
/** setTimeout fires at once for longer delays */
export const MAX_TIMEOUT_MS = MAX_TIMER_MS

export const ApprovalConfigSchema: Schema<ApprovalConfig> = Schema.object({
  policy: Schema.union(['ask', 'never'] as const).description('ask: consult listeners; never: deny every request'),
  timeoutMs: Schema.natural().min(1).max(MAX_TIMEOUT_MS).description('how long a request waits for an answer'),
  preset: Schema.string().description('a preset: read-only, auto, workspace-write, full-access'),
})

export function resolveApprovalConfig(config: unknown = {}): ResolvedApprovalConfig {
  const c = (config ?? {}) as Record<string, unknown>
  if (typeof c !== 'object' || Array.isArray(c)) throw new KernelError('INVALID_CONFIG', `approval config must be an object, got ${JSON.stringify(config)}`)
  rejectUnknownKeys(ApprovalConfigSchema, c, 'approval')
  if (c.policy !== undefined && c.policy !== 'ask' && c.policy !== 'never') {
    throw new KernelError('INVALID_CONFIG', `approval.policy must be "ask" or "never", got ${JSON.stringify(c.policy)}`, { details: { path: 'approval.policy' } })
  }
  const timeoutMs = c.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new KernelError('INVALID_CONFIG', `approval.timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(c.timeoutMs)}`, { details: { path: 'approval.timeoutMs' } })
  }
  const preset = c.preset === undefined ? undefined : getPreset(c.preset)
  return {
    policy: (c.policy as ApprovalPolicy | undefined) ?? preset?.policy ?? 'ask',
    timeoutMs,
    ...(preset ? { preset: preset.name } : {}),
  }
}
