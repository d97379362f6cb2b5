/**
 * The public shapes of the sandbox (DESIGN §8): modes, policies, what a
 * provider returns for one command, and what a probe found.
 */
import type { SlotRequest } from './process/slots.js'
import type { JsonValue, SandboxMode } from '@dsh/kernel'
import type { ResolvedLimits, SandboxLimits } from './policy/limits.js'
import type { NetworkPolicy, ResolvedNetwork } from './network/policy.js'
import type { ProxyEndpoint, ProxyKind } from './network/proxy.js'
import type { ConfineCall } from './network/events.js'

export type { SandboxMode } from '@dsh/kernel'
export { SANDBOX_MODES } from '@dsh/kernel'

/** What a caller asks for. Paths must be absolute; network is off unless asked. */
export interface SandboxPolicy {
  mode: SandboxMode
  /** the command's working directory; writable in `workspace-write` */
  workspace: string
  /** more writable directories (`workspace-write` only), each inside what the host allows */
  writableRoots?: string[]
  network?: NetworkPolicy
  /** resource limits of the command; each unset one takes the service's default */
  limits?: SandboxLimits
  /** paths the command may not read (absolute or `~/…`; default DEFAULT_READ_DENY) */
  readDeny?: string[]
  /** paths inside denied ones that stay readable */
  readAllow?: string[]
  /** relative paths kept read-only in every writable root besides the core ones (default DEFAULT_PROTECTED_PATHS) */
  protectedPaths?: string[]
  /**
   * variables added to the command's fixed environment (a server's token, say); their values
   * reach the launcher by its environment (`Confined.spawnEnv`), never its argv
   */
  env?: Record<string, string>
}

/** A policy after checking: real paths, defaults filled in. */
export interface ResolvedPolicy {
  readonly mode: SandboxMode
  /** real path of the workspace */
  readonly workspace: string
  /** real paths of every writable directory, the workspace first; empty unless `workspace-write` */
  readonly writableRoots: readonly string[]
  /** `off`, `on`, or host patterns the command reaches through the sandbox's proxy */
  readonly network: ResolvedNetwork
  readonly limits: ResolvedLimits
  /** the proxy this one command reaches, set by the service when `network` lists hosts */
  readonly proxy?: ProxyEndpoint
  /** real paths hidden from the command (none contains the workspace or a writable root) */
  readonly readDeny: readonly string[]
  /** real paths inside a denied one that stay readable */
  readonly readAllow: readonly string[]
  /** every protected path, relative (`.git`, `.git/hooks`, `.envrc`): the core ones and the policy's */
  readonly protectedPaths: readonly string[]
  /** the policy's own variables, checked; absent when it has none */
  readonly env?: Readonly<Record<string, string>>
  /**
   * absolute paths registered with `protect()` (the config file in use, plugin files, settings files)
   * and a restriction's `readOnly` paths (`restrict()`), that lie inside the writable roots: protected
   * besides `protectedPaths`, all by one mechanism; empty unless `workspace-write`
   */
  readonly registeredPaths?: readonly string[]
  /** what the service's restrictions say no backend enforces of them (ids in docs/threat-model.md) */
  readonly restrictionGaps?: readonly string[]
  /** the restrictions' exact test of a real path, for the file tools: what denies reading it (a rule), or undefined */
  readonly readDenied?: (realPath: string) => string | undefined
  /** the restrictions' test of each exec inside a confined call (absent: no exec is checked) */
  readonly execRules?: ExecRules
  /** the unix socket the launcher asks about each exec, set by the service for one call */
  readonly execNotify?: string
}

/** One exec a confined command is about to make, stopped by the kernel before it happens. */
export interface ExecRequest {
  /** the path as the program gave it to execve */
  readonly path: string
  /** the program's real path ('' when it does not resolve: the exec will fail) */
  readonly realPath: string
  /**
   * For a script, the interpreters the kernel runs with no exec of their own: each `#!` line
   * (without the `#!`; the first the script's, each next one that of the interpreter before it when
   * that is a script too) and the real path of the interpreter it names ("" when it is missing)
   */
  readonly interpreters?: readonly { readonly line: string; readonly realPath: string }[]
  /**
   * Where the program (level -1) or one of its interpreters (its index) is the dynamic loader, which
   * maps the file its argv names and runs it with no exec: that file's real path ("" when missing)
   */
  readonly loaded?: readonly { readonly level: number; readonly realPath: string }[]
  /** the argv as the program sees it (the first 4096 arguments or 256 KiB, then `truncated`) */
  readonly argv: readonly string[]
  readonly truncated: boolean
  /**
   * the program cannot be known: its path goes through a link procfs answers by who asks
   * (/proc/self/fd/N, /dev/fd/N, /proc/PID/root/…). The launcher has refused the exec already; the
   * check sees it to record it, and what it answers changes nothing.
   */
  readonly unresolved?: boolean
  /** the process, as the launcher's supervisor sees it */
  readonly pid: number
}

/** What a check answers for one exec: it goes on, or it fails with EACCES (`reason` and `rule` for the record and the result). */
export type ExecVerdict = { allow: true } | { allow: false; reason: string; rule?: string }

/**
 * A restriction's test of each exec of a confined call (claude-code-permissions' Bash rules): it may
 * ask (the exec waits) and must answer; one that throws refuses the exec.
 */
export interface ExecRules {
  /**
   * The program names (a word as exec'd, or its base name) whose execs `check` may refuse; an exec
   * none of whose names (argv[0], the path, the real path) is listed goes on without being asked
   * (the launcher answers it). Absent: every exec is asked.
   */
  readonly programs?: readonly string[]
  /**
   * For a listed program, what an exec's strings (argv, the path, the real path, a script's `#!`
   * line) must hold for `check` to refuse it: one list per way a rule can meet it, each item
   * `s<piece>` (inside one of the strings) or `f<letter>` (inside a cluster of short flags, `-rf`, in one of them: native/landlock-run/exec-match.c). An exec
   * that fails an item of every list of each listed name it has goes on without being asked. A
   * listed program without an entry: each of its execs is asked.
   */
  readonly needs?: Readonly<Record<string, readonly (readonly string[])[]>>
  check(request: ExecRequest, call: ConfineCall): ExecVerdict | Promise<ExecVerdict>
}

/**
 * What a plugin adds to every policy the service resolves (`ctx.sandbox.restrict`): it only ever
 * narrows — paths joined to `readDeny`, paths kept read-only as protected paths are. Paths are
 * absolute, existing or not; a path that exists when a call is confined is hidden (or kept
 * read-only) for that call.
 */
export interface SandboxRestriction {
  /** paths the command and the file tools may not read */
  readDeny?: readonly string[]
  /** paths kept read-only inside the writable roots (one created during the call is removed after it, as a protected path) */
  readOnly?: readonly string[]
  /** what of it no backend can enforce (ids in docs/threat-model.md), added to each call's `unenforced` */
  unenforced?: readonly string[]
  /** the exact test the file tools apply to a real path (the patterns `readDeny` was expanded from): what denies it, or undefined */
  readDenied?(realPath: string): string | undefined
  /** each exec of a confined call checked by it (only where its rules could refuse one: the filter costs a round trip per exec) */
  exec?: ExecRules
}

/** A restriction for one policy (its mode, real workspace and writable roots); undefined adds nothing. It is called for every policy resolved. */
export type SandboxRestrictor = (policy: Pick<ResolvedPolicy, 'mode' | 'workspace' | 'writableRoots'>) => SandboxRestriction | undefined

export type Enforcement = 'full' | 'partial'

/** One command made ready to run confined. */
export interface Confined {
  /** spawn exactly this (absolute paths; nothing is looked up on PATH) */
  readonly argv: readonly string[]
  /** the backend that confines it; `none` only for `danger-full-access` */
  readonly backend: string
  readonly enforcement: Enforcement
  /** what the backend could not enforce of the policy (ids in docs/threat-model.md) */
  readonly unenforced: readonly string[]
  /**
   * The whole environment the command starts with: the argv sets it itself
   * (whatever environment the host spawns the argv with, the command sees
   * only this). Empty for `danger-full-access`, which runs as spawned.
   */
  readonly env: Readonly<Record<string, string>>
  /**
   * What the argv must be spawned with in its environment, besides anything:
   * the variables carrying the call's proxy credential (`network: { allow }`),
   * kept out of the argv that every host process can read. Spawned without
   * them, the launcher refuses to start. Empty otherwise.
   */
  readonly spawnEnv: Readonly<Record<string, string>>
  /** the denied paths that exist and that the backend hides from the command (the rest are in `unenforced`) */
  readonly hidden: readonly string[]
  /**
   * Protected entries the backend cannot keep read-only that were copied
   * before the call and are put back by `cleanup()` (Landlock alone);
   * empty where they are read-only (bwrap) or nothing is writable.
   */
  readonly restores: readonly string[]
  /**
   * Present when the service may run the command in a sandbox it built ahead for this view
   * (`sandbox.pool`): give it to the process runner (`ProcessOptions.slot`), which takes the
   * view's waiting launcher or, when none matches, spawns `argv` as without it. Never anything
   * but a way to start `argv`: the same confinement, lease and cleanup.
   */
  readonly slot?: SlotRequest
  /**
   * Call once the command and everything it started are gone: removes a
   * protected path the command created (one that did not exist before) and
   * restores a protected symlink it replaced — once no overlapping call on
   * the same entries is still running. Returns the paths it changed.
   */
  cleanup(): string[]
}

/** What `describe(policy)` answers: how `confine()` would confine a command under the policy now, without the argv or a lease. */
export type Description = Pick<Confined, 'backend' | 'enforcement' | 'unenforced' | 'hidden' | 'restores'>

export interface ProbeResult {
  available: boolean
  /** why not, or a note on what was checked */
  reason?: string
  /** the absolute path of the binary the backend runs */
  path?: string
  /** backend-specific facts (a Landlock ABI, say) */
  details?: JsonValue
}

/** What a provider hands back before the service adds cleanup. */
export interface ProviderConfined {
  argv: string[]
  backend?: string
  enforcement: Enforcement
  unenforced: string[]
  /** the denied paths it hides (default: none; a provider that hides nothing says so in `unenforced`) */
  hidden?: string[]
  /** existing protected entries it cannot keep read-only, which the service copies before the call and puts back after it */
  snapshot?: string[]
}

export interface SandboxProvider {
  /** the backend name reported in `Confined.backend` */
  name: string
  /** `process.platform` values it can run on */
  platforms: readonly NodeJS.Platform[]
  /** called once (memoised): really run a read-only profile and check that a write is refused */
  probe(): Promise<ProbeResult>
  /**
   * How this backend lets a command reach the proxy when the policy lists hosts
   * (a port on 127.0.0.1, or a unix socket it bridges in); a backend without
   * one cannot confine the network by domain, and such a policy fails.
   */
  networkProxy?: ProxyKind
  /**
   * Whether this backend passes `policy.execNotify` to a launcher whose kernel can stop each exec
   * (seccomp user notification); without it a policy's `execRules` are `exec-rules` in `unenforced`.
   */
  execNotify?(): boolean
  /** build the argv; only called after a successful probe, with a checked policy */
  confine(argv: readonly string[], policy: ResolvedPolicy): ProviderConfined
}

export interface CandidateStatus {
  name: string
  source: 'provided' | 'local'
  platforms: readonly NodeJS.Platform[]
  /** undefined until probed */
  probe?: ProbeResult
}

export interface SandboxStatus {
  /** the backend `confine` uses, once probing found one */
  chosen?: string
  candidates: CandidateStatus[]
}
