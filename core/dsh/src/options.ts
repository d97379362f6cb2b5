/**
 * `createKernel` options, checked with schemastery. Unknown keys anywhere are
 * an error naming the key (schemastery keeps them, so they are rejected here).
 */
import Schema from 'schemastery'
import { KernelError, rejectUnknownKeys, SANDBOX_MODES, type SandboxMode } from '@dsh/kernel'
import type { ToolsMode } from '@dsh/tools'

export interface KernelOptions {
  tools?: { mode?: ToolsMode; code?: Record<string, number> }
  approval?: { policy?: 'ask' | 'never'; timeoutMs?: number; preset?: string }
  sandbox?: {
    mode?: SandboxMode
    workspace?: string
    network?: 'off' | 'on'
    /** where a policy may make anything writable (default: the workspace) */
    allowedRoots?: string[]
    /** which local backends to try, in order (default: the platform's chain) */
    backends?: Array<'bwrap' | 'landlock' | 'seatbelt' | 'windows-acl'>
  }
  /** the kernel's data directory (default `.dsh`) */
  dataDir?: string
  /** plugin (bundled short name, package name or path) → its config */
  plugins?: Record<string, unknown>
  /** a dsh.yml to read the rest from */
  configFile?: string
}

const positive = Schema.number().min(1)

export const KernelOptionsSchema = Schema.object({
  tools: Schema.object({
    mode: Schema.union(['native', 'code', 'both'] as const),
    code: Schema.object({
      timeoutMs: positive,
      memoryBytes: positive,
      maxSubCalls: positive,
      maxParallelSubCalls: positive,
      maxValueBytes: positive,
      maxLogBytes: positive,
    }),
  }),
  approval: Schema.object({
    policy: Schema.union(['ask', 'never'] as const),
    timeoutMs: positive,
    preset: Schema.string(),
  }),
  sandbox: Schema.object({
    mode: Schema.union([...SANDBOX_MODES]),
    workspace: Schema.string(),
    network: Schema.union(['off', 'on'] as const),
    allowedRoots: Schema.array(Schema.string()),
    backends: Schema.array(Schema.union(['bwrap', 'landlock', 'seatbelt', 'windows-acl'] as const)),
  }),
  dataDir: Schema.string(),
  plugins: Schema.dict(Schema.any()),
  configFile: Schema.string(),
})

export function checkOptions(options: unknown, where = 'createKernel options'): KernelOptions {
  if (options === undefined) return {}
  if (!options || typeof options !== 'object' || Array.isArray(options)) throw new KernelError('INVALID_CONFIG', `${where} must be an object`)
  rejectUnknownKeys(KernelOptionsSchema, options, '')
  try {
    KernelOptionsSchema(options as any)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `${where}: ${(error as Error).message}`, { cause: error })
  }
  // the schema validates; what was given is what counts. schemastery would fill an absent
  // array with [] (for allowedRoots: "nothing writable") and absent sections with {}, and a
  // filled section would erase a config file's keys when the two are merged
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(options)) {
    copy[key] = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : value
  }
  return copy as KernelOptions
}
