/**
 * `createKernel` options, checked with schemastery. Unknown keys anywhere are
 * an error naming the key (schemastery keeps them, so they are rejected here).
 */
import Schema from 'schemastery'
import { KernelError, rejectUnknownKeys, SANDBOX_MODES, type SandboxMode } from '@dsh/kernel'
import { DEFAULT_TIMEOUT_MS, presetList } from '@dsh/approval'
import type { ToolsMode } from '@dsh/tools'
import { DEFAULT_LIMITS } from '@dsh/sandbox'
import { MCP_DEFAULTS, type McpLimits } from '../config/mcp-limits.js'

export interface KernelOptions {
  tools?: { mode?: ToolsMode; code?: Record<string, number> }
  approval?: { policy?: 'ask' | 'never'; timeoutMs?: number; preset?: string }
  sandbox?: {
    mode?: SandboxMode
    workspace?: string
    /** off, on, or host patterns reached through the sandbox's proxy */
    network?: 'off' | 'on' | { allow: string[]; deny?: string[] }
    /** where a policy may make anything writable (default: the workspace) */
    allowedRoots?: string[]
    /** which local backends to try, in order (default: the platform's chain) */
    backends?: Array<'bwrap' | 'landlock-ns' | 'landlock' | 'seatbelt' | 'windows-acl'>
    /** paths confined commands and the file tools may not read: absolute, `~/…` or workspace-relative (default: the usual credential stores) */
    readDeny?: string[]
    /** paths inside denied ones that stay readable */
    readAllow?: string[]
    /** relative paths kept read-only in every writable root besides the core ones */
    protectedPaths?: string[]
    /** `.git` read-only, or writable but for its hooks and config */
    git?: 'read-only' | 'commit'
    /** resource limits of every confined command (each unset one keeps its default) */
    limits?: { processes?: number; memoryBytes?: number; fileSizeBytes?: number; cpuSeconds?: number; openFiles?: number }
  }
  /** `dsh mcp`'s limits (read when it starts) */
  mcp?: Partial<McpLimits>
  /** the kernel's data directory (default `.dsh`) */
  dataDir?: string
  /** let confined commands and the file tools read the data directory (default false: it is read-denied) */
  dataDirReadable?: boolean
  /** plugin (bundled short name, package name or path) → its config */
  plugins?: Record<string, unknown>
  /** a dsh.yml to read the rest from */
  configFile?: string
}

const positive = Schema.number().min(1)
// Why integers: each is an rlimit, and 1.5 processes is not one the launcher can set
const limit = Schema.natural().min(1)

// The descriptions and defaults are the reference `dsh init` and docs/configuration.md show; the
// values checkOptions returns are what was given (the services apply their own defaults).
export const KernelOptionsSchema = Schema.object({
  tools: Schema.object({
    mode: Schema.union(['native', 'code', 'both'] as const).default('native')
      .description('What the model is sent: native, every tool; code, only run_code (a TypeScript program calling the tools); both.'),
    code: Schema.object({
      timeoutMs: positive.default(30_000).description('run_code: wall-clock deadline of one program, in ms.'),
      memoryBytes: positive.default(64 * 1024 * 1024).description('run_code: memory cap of one program, in bytes.'),
      maxSubCalls: positive.default(1000).description('run_code: tool calls one program may make.'),
      maxParallelSubCalls: positive.default(8).description('run_code: tool calls one program may have running at once.'),
      maxValueBytes: positive.default(1024 * 1024).description('run_code: bytes of any value crossing between the program and the host.'),
      maxLogBytes: positive.default(64 * 1024).description('run_code: bytes of console.log output kept.'),
    }),
  }),
  approval: Schema.object({
    policy: Schema.union(['ask', 'never'] as const).default('ask')
      .description('ask: an approval request goes to the approval/request listeners (the MCP client, a terminal prompt); never: every request is denied.'),
    timeoutMs: positive.default(DEFAULT_TIMEOUT_MS).description('How long an approval request waits for an answer before it is denied, in ms.'),
    preset: Schema.string().description(`A preset filling policy and sandbox.mode where they are not set: ${presetList().map((p) => p.name).join(', ')}.`),
  }),
  sandbox: Schema.object({
    mode: Schema.union([...SANDBOX_MODES]).default('read-only')
      .description('The default sandbox mode: read-only writes nothing; workspace-write lets commands and write/edit change the workspace (protected paths stay read-only); danger-full-access confines nothing.'),
    workspace: Schema.string().description('The workspace directory. Default: the current directory.'),
    network: Schema.union([
      Schema.const('off'),
      Schema.const('on'),
      Schema.object({
        allow: Schema.array(Schema.string()).required().description('Host patterns confined commands may reach: example.com (that name), *.example.com (the names below it), * (every name), or an IP address; [] for none.'),
        deny: Schema.array(Schema.string()).description('Host patterns refused even when allow matches them (same syntax).'),
      }),
    ]).default('off').description('Whether confined commands may use the network: off, on, or { allow, deny } — only the listed hosts, through a proxy the sandbox runs on the host (HTTP CONNECT and SOCKS5, no DNS inside; each connection is recorded as sandbox/network).'),
    // no schema default: an absent list means the service's default, an empty one means none
    allowedRoots: Schema.array(Schema.string()).default(undefined as unknown as string[]).description('Where a policy may make anything writable. Default: the workspace.'),
    backends: Schema.array(Schema.union(['bwrap', 'landlock-ns', 'landlock', 'seatbelt', 'windows-acl'] as const)).default(undefined as unknown as never[])
      .description('Which local sandbox backends to try, in order. Default: the platform\'s chain (Linux: bwrap, then landlock-ns where user namespaces work, then landlock).'),
    readDeny: Schema.array(Schema.string()).default(undefined as unknown as string[])
      .description('Paths that confined commands and the file tools may not read: absolute, ~/…, or relative to the workspace (./secrets, .env); a trailing /** is the directory itself, other patterns are refused (write a Read(...) deny rule for those); an empty list denies nothing, and the data directory and claude-code-permissions\' Read denies are denied besides. Default: the usual credential stores (~/.ssh, ~/.aws, ~/.gnupg, ~/.config/gh, ~/.config/gcloud, ~/.azure, ~/.kube, ~/.docker/config.json, ~/.netrc, ~/.git-credentials, /etc/shadow, /etc/gshadow). The workspace stays readable.'),
    readAllow: Schema.array(Schema.string()).default(undefined as unknown as string[])
      .description('Paths inside readDeny ones (and inside what the permission rules deny) that stay readable, written as readDeny\'s. Default: none.'),
    protectedPaths: Schema.array(Schema.string()).default(undefined as unknown as string[])
      .description('Relative paths kept read-only in every writable root, at its top and where they exist up to 3 directory levels below it, besides .git, .dsh, .claude, .codex and .mcp.json, which always are; an empty list adds none. Default: .vscode, .idea, .husky, .envrc, .gitmodules, .gitconfig, .npmrc, .bashrc, .bash_profile, .bash_login, .profile, .zshrc, .zshenv, .zprofile, .zlogin.'),
    git: Schema.union(['read-only', 'commit'] as const).default('read-only')
      .description('read-only: .git stays read-only as a whole, so confined commands cannot commit; commit: .git is writable except hooks, config, config.worktree, info, modules and worktrees, so git commit works.'),
    pool: Schema.union([
      Schema.boolean(),
      Schema.object({
        idleMs: Schema.natural().default(300_000).description('How long a sandbox built ahead waits unused before it is killed, in ms.'),
      }),
    ]).default(true).description('Sandboxes built ahead: for each view (backend, mode, policy, workspace) one launcher with the whole confinement in place waits for the next command, so a call pays only the command\'s exec; any change of the view kills it unused. false: every command starts its own launcher.'),
    limits: Schema.object({
      processes: limit.default(DEFAULT_LIMITS.processes).description('Processes and threads of the confined command\'s user (RLIMIT_NPROC; not enforced for root, reported as limits.processes in unenforced).'),
      memoryBytes: limit.default(DEFAULT_LIMITS.memoryBytes).description('Address space of each process, in bytes (RLIMIT_AS).'),
      fileSizeBytes: limit.default(DEFAULT_LIMITS.fileSizeBytes).description('The largest file a process may write, in bytes (RLIMIT_FSIZE).'),
      cpuSeconds: limit.default(DEFAULT_LIMITS.cpuSeconds).description('CPU time of each process, in seconds (RLIMIT_CPU).'),
      openFiles: limit.default(DEFAULT_LIMITS.openFiles).description('Open file descriptors of each process (RLIMIT_NOFILE).'),
    }).description('Resource limits of every confined command, set by the launcher before exec (soft and hard alike); each one left out keeps its default.'),
  }),
  mcp: Schema.object({
    maxMessageBytes: positive.default(MCP_DEFAULTS.maxMessageBytes).description('dsh mcp: the largest message read from the client, in bytes; a larger one is refused with a JSON-RPC error (-32600) and the server serves on.'),
    maxConcurrentCalls: positive.default(MCP_DEFAULTS.maxConcurrentCalls).description('dsh mcp: tool calls running at once; more wait their turn (a cancelled one leaves the queue at once).'),
    maxBytesInFlight: positive.default(MCP_DEFAULTS.maxBytesInFlight).description('dsh mcp: bytes of requests read but not answered plus answers not yet taken by the client; above it the server stops reading stdin until the client reads.'),
    otelFlushTimeoutMs: positive.default(MCP_DEFAULTS.otelFlushTimeoutMs).description('dsh mcp --otel: how long the shutdown waits for the last spans to be exported, in ms; what is not sent by then is dropped, with one line on stderr.'),
  }),
  dataDir: Schema.string().default('.dsh').description('The kernel\'s data directory (session logs, spill files), relative to the config file.'),
  dataDirReadable: Schema.boolean().default(false).description('Whether confined commands and the file tools may read the data directory. Default false: it is read-denied (the session logs hold every result, secrets included), except this session\'s spill files for read.'),
  plugins: Schema.dict(Schema.any()),
  configFile: Schema.string(),
})

export function checkOptions(options: unknown, where = 'createKernel options'): KernelOptions {
  if (options === undefined) return {}
  if (!options || typeof options !== 'object' || Array.isArray(options)) throw new KernelError('INVALID_CONFIG', `${where} must be an object`)
  rejectUnknownKeys(KernelOptionsSchema, options, '')
  try {
    // Why each given section alone, in the object's order and with its path (so the same first error,
    // worded the same): an absent section's check only fills its constant defaults into a result
    // nobody reads (~80 µs a reload); a required one is still checked
    const sections = KernelOptionsSchema.dict as Record<string, Schema>
    for (const key in sections) {
      if (Object.hasOwn(options, key) || sections[key]!.meta.required) sections[key]!((options as Record<string, unknown>)[key], { path: [key] })
    }
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
