/**
 * The Landlock backend: `native/landlock-run` with read rules for the host's
 * top-level directories (except /tmp, whose other users' files stay out of
 * sight), a few device files, and write rules for the writable roots. What
 * Landlock cannot express is reported per call (docs/threat-model.md).
 */
import { existsSync, readdirSync } from 'node:fs'
import { describeError, type JsonValue } from '@dsh/kernel'
import { checkBinary } from '../probe/binaries.js'
import { confinedEnv, launcherEnvArgs } from '../policy/env.js'
import { bundledLauncher } from '../probe/launcher.js'
import { launcherLimitArgs, limitsUnenforced } from '../policy/limits.js'
import { isProxied } from '../network/policy.js'
import { isInside } from '../paths.js'
import type { CarvedRules } from './landlock-read.js'
import { cachedCarve } from './landlock-read-cache.js'
import { landlockSnapshot } from './landlock-restore.js'
import { hideMounts, launcherHideArgs } from './hide-mounts.js'
import { inodeArgs } from './inode-args.js'
import { execNotifyArgs, probeStopsExec } from './exec-notify.js'
import { probeReadOnlyWrite } from '../probe/profile.js'
import { runProbeCommand } from '../probe/command.js'
import type { ProbeResult, ProviderConfined, ResolvedPolicy, SandboxProvider } from '../types.js'

export interface LandlockOptions {
  /** the launcher binary (default: the one this package ships, checked against its manifest) */
  launcher?: string
}

interface LauncherProbe {
  abi: number
  limits: string[]
  /** whether --private-mounts works for this caller (it holds CAP_SYS_ADMIN: root) */
  private_mounts?: boolean
}

// Why only these devices: the host's /dev holds raw disks that uid 0 may open without any capability
const DEVICES = ['--rw', '/dev/null', '--ro', '/dev/zero', '--ro', '/dev/random', '--ro', '/dev/urandom']
const NOT_READ = new Set(['tmp', 'proc', 'dev', 'lost+found'])

/** `--ro` for every top-level entry of / except /tmp, /proc and /dev, plus /proc and a few devices. */
function hostReadRules(): string[] {
  const rules: string[] = []
  // Why existsSync: a dangling top-level symlink (/lib32 -> usr/lib32) would make every launch fail
  for (const name of readdirSync('/').sort()) if (!NOT_READ.has(name) && existsSync(`/${name}`)) rules.push('--ro', `/${name}`)
  return [...rules, '--ro', '/proc', ...DEVICES]
}

/**
 * The host read rules with the policy's denied paths carved out. In `read-only` the workspace's
 * own rule is carved with them (`workspace: true`: landlockArgs adds no rule of its own for it),
 * so `.env` or the data directory in it are hidden too — nothing can be created there during the
 * call, so no new entry misses a rule. Beneath a writable root nothing is carved: the root's rule
 * must keep the right to create entries (`read-deny`).
 */
export function landlockReadRules(policy: ResolvedPolicy, readRules: readonly string[]): CarvedRules & { workspace?: boolean } {
  // Why only then: with nothing denied inside it, the workspace keeps its one rule (and the carve its cache key)
  if (policy.mode === 'read-only' && policy.readDeny.some((d) => isInside(policy.workspace, d))) {
    return { ...cachedCarve([...readRules, '--ro', policy.workspace], policy.readDeny, policy.readAllow), workspace: true }
  }
  const free = [policy.workspace, ...policy.writableRoots]
  const deny = policy.readDeny.filter((d) => !free.some((root) => isInside(root, d)))
  return cachedCarve(readRules, deny, policy.readAllow)
}

/**
 * For a caller whose launcher can mount (`--private-mounts`: root): the host
 * read rules whole, and the same denied paths covered by mounts in the
 * launcher's private mount namespace instead of carved out of the rules —
 * /etc/shadow alone takes a rule for each of /etc's other entries (~136
 * here, ~1 ms a call), a cover two syscalls and a mount. See
 * docs/decisions/2026-12-01-private-mounts.md. Denied paths inside the
 * workspace and the writable roots are covered too.
 */
export function landlockCovers(policy: ResolvedPolicy, readRules: readonly string[]): CarvedRules & { args: string[] } {
  // Why the workspace's denied paths too (`.env`, `.dsh`): a cover in the launcher's own mount namespace
  // hides them as bwrap's does, where the carve could not without taking the root's rights away
  const mounts = hideMounts(policy)
  // Why through the carve with nothing to carve: each rule by its real path, those beneath another dropped
  const { rules } = cachedCarve(readRules, [], [])
  return { rules, hidden: mounts.hide.map((h) => h.path), args: ['--private-mounts', ...launcherHideArgs(mounts)] }
}

/** The launcher's arguments for a policy; `readRules` come from the probe. */
export function landlockArgs(policy: ResolvedPolicy, readRules: readonly string[], carved: CarvedRules & { args?: string[]; workspace?: boolean } = landlockReadRules(policy, readRules)): string[] {
  const args = [...(carved.args ?? []), ...launcherEnvArgs(confinedEnv(policy), policy.env), ...launcherLimitArgs(policy.limits), ...carved.rules]
  // Why: a root's rule is opened by name; it must be on the directory resolved here, not one swapped in since
  const own = policy.mode === 'workspace-write' ? policy.writableRoots : [policy.workspace]
  args.push(...inodeArgs(own))
  if (policy.mode === 'workspace-write') for (const root of policy.writableRoots) args.push('--rw', root)
  // a workspace under /tmp is not covered by the host rules; a carve that took the workspace in has its rules already
  else if (!carved.workspace) args.push('--ro', policy.workspace)
  if (policy.network === 'off') args.push('--no-net')
  else if (isProxied(policy.network)) {
    if (!policy.proxy) throw new Error('network lists hosts but the call has no proxy port')
    args.push('--net-proxy', String(policy.proxy.port))
  }
  args.push(...execNotifyArgs(policy))
  return args
}

export function landlockUnenforced(policy: ResolvedPolicy, probe: LauncherProbe): string[] {
  // Why host-processes: /proc is the host's (every process's command line); --ro /proc is needed for the launcher's own supervision
  const gaps = ['metadata', 'launcher-sigkill', 'host-processes']
  if (policy.mode === 'workspace-write') gaps.push('protected-paths')
  if (policy.network === 'on' && probe.abi < 9) gaps.push('pathname-unix-sockets')
  if (probe.abi < 6) gaps.push('signals-outside')
  // Why: Landlock's TCP rule names a port, not an address: a host elsewhere listening on the proxy's port number is reachable too
  if (isProxied(policy.network)) gaps.push('proxy-port-any-address')
  return [...gaps, ...limitsUnenforced()]
}

export function landlockProvider(options: LandlockOptions = {}): SandboxProvider {
  let launcher: string | undefined
  let info: LauncherProbe | undefined
  let readRules: string[] = []

  const build = (argv: readonly string[], policy: ResolvedPolicy, carved?: CarvedRules & { args?: string[] }) => [launcher!, ...landlockArgs(policy, readRules, carved), '--', ...argv]

  return {
    name: 'landlock',
    platforms: ['linux'],
    networkProxy: 'tcp',
    execNotify: () => probeStopsExec(info),
    async probe(): Promise<ProbeResult> {
      const found = options.launcher ? checkBinary(options.launcher) : bundledLauncher()
      if ('reason' in found) return { available: false, reason: found.reason }
      const path = found.path
      let details: JsonValue
      try {
        const run = await runProbeCommand(path, ['--probe'], { env: {}, timeoutMs: 10_000 })
        if (run.exitCode !== 0) return { available: false, path, reason: run.error ?? (run.stderr.trim() || `--probe exited ${run.exitCode ?? run.signal}`) }
        details = JSON.parse(run.stdout) as JsonValue
        const parsed = details as unknown as LauncherProbe
        if (typeof parsed.abi !== 'number' || !Array.isArray(parsed.limits)) throw new Error('unexpected --probe output')
        info = parsed
        readRules = hostReadRules()
      } catch (error) {
        return { available: false, path, reason: `landlock-run --probe: ${describeError(error)}` }
      }
      launcher = path
      const write = await probeReadOnlyWrite('landlock', build)
      return { available: write.available, reason: write.reason, path, details }
    },
    confine(argv, policy): ProviderConfined {
      if (!launcher || !info) throw new Error('landlock provider used before a successful probe')
      if (isProxied(policy.network) && info.abi < 4) throw new Error(`network by host needs Landlock ABI 4 (TCP rules, Linux 6.7); this kernel has ABI ${info.abi}`)
      const unenforced = landlockUnenforced(policy, info)
      // Why not for every caller: without CAP_SYS_ADMIN the launcher cannot mount, and the carve is what hides
      const carved = info.private_mounts === true ? landlockCovers(policy, readRules) : landlockReadRules(policy, readRules)
      return { argv: build(argv, policy, carved), enforcement: 'partial', unenforced, hidden: carved.hidden, snapshot: landlockSnapshot(policy) }
    },
  }
}
