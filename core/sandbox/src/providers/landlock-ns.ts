/** The launcher's own namespaces, bwrap's view without a system bwrap, for machines where user namespaces work but none is installed (docs/decisions/2026-12-01-launcher-namespaces.md). */
import { checkBinary } from '../probe/binaries.js'
import { confinedEnv, launcherEnvArgs } from '../policy/env.js'
import { bundledLauncher } from '../probe/launcher.js'
import { launcherLimitArgs } from '../policy/limits.js'
import { isProxied } from '../network/policy.js'
import { probeReadOnlyWrite } from '../probe/profile.js'
import { bwrapUnenforced, coveredInside, protectedBinds } from './bwrap.js'
import { hideMounts, launcherHideArgs, type HideMounts } from './hide-mounts.js'
import { inodeArgs } from './inode-args.js'
import { execNotifyArgs, launcherStopsExec } from './exec-notify.js'
import type { ProbeResult, ProviderConfined, ResolvedPolicy, SandboxProvider } from '../types.js'

export interface LandlockNsOptions {
  /** the launcher binary (default: the one this package ships, checked against its manifest) */
  launcher?: string
}

/** The launcher's argv for a policy: the binds in order (roots, then protected entries over them), then the rules. */
export function landlockNsArgs(launcher: string, argv: readonly string[], policy: ResolvedPolicy, mounts: HideMounts = hideMounts(policy)): string[] {
  const args = [launcher, '--namespaces', '--chdir', policy.workspace, ...launcherEnvArgs(confinedEnv(policy), policy.env), ...launcherLimitArgs(policy.limits)]
  if (policy.mode === 'workspace-write') {
    const binds = protectedBinds(policy)
    // Why: each bind's source, the rules and the working directory are opened by name; each must be what was resolved here
    args.push(...inodeArgs([policy.workspace, ...policy.writableRoots, ...binds.ancestors, ...binds.existing], binds.inodes))
    for (const root of policy.writableRoots) args.push('--mount-rw', root)
    // Why each ancestor of a nested protected entry bound onto itself: a mount point cannot be renamed (EBUSY)
    for (const dir of binds.ancestors) args.push('--mount-rw', dir)
    for (const path of binds.existing) args.push('--mount-ro', path)
  } else {
    args.push(...inodeArgs([policy.workspace]))
    // Why: a workspace under /tmp is behind the private /tmp; elsewhere the read-only host shows it
    if (coveredInside(policy.workspace)) args.push('--mount-ro', policy.workspace)
  }
  // Why after the binds: a cover hides what they exposed (a denied path inside a writable root too)
  args.push(...launcherHideArgs(mounts))
  args.push('--ro', '/', '--rw', '/tmp', '--rw', '/dev')
  if (policy.mode === 'workspace-write') for (const root of policy.writableRoots) args.push('--rw', root)
  if (policy.network === 'off') args.push('--no-net')
  else if (isProxied(policy.network)) {
    // Why no namespace of its own here: the command reaches the proxy's port on the host's loopback, and Landlock's rule allows that port only
    if (!policy.proxy) throw new Error('network lists hosts but the call has no proxy port')
    args.push('--net-proxy', String(policy.proxy.port))
  }
  // Why no bind: the supervisor that connects to it stays outside the namespaces, on the host
  args.push(...execNotifyArgs(policy), '--', ...argv)
  return args
}

export function landlockNsProvider(options: LandlockNsOptions = {}): SandboxProvider {
  let launcher: string | undefined
  let stopsExec = false
  return {
    name: 'landlock-ns',
    platforms: ['linux'],
    networkProxy: 'tcp',
    execNotify: () => stopsExec,
    async probe(): Promise<ProbeResult> {
      const found = options.launcher ? checkBinary(options.launcher) : bundledLauncher()
      if ('reason' in found) return { available: false, reason: found.reason }
      const write = await probeReadOnlyWrite('landlock-ns', (argv, policy) => landlockNsArgs(found.path, argv, policy))
      if (write.available) [launcher, stopsExec] = [found.path, await launcherStopsExec(found.path)]
      return { available: write.available, reason: write.reason, path: found.path, ...(write.available ? { details: { execNotify: stopsExec } } : {}) }
    },
    confine(argv, policy): ProviderConfined {
      if (!launcher) throw new Error('landlock-ns provider used before a successful probe')
      // Why bwrap's list: the same mounts leave the same gaps (absent protected paths, symlinks, unix sockets with the network on)
      // and Landlock's, with hosts: its TCP rule names the proxy's port, not the address
      const unenforced = [...bwrapUnenforced(policy), ...(isProxied(policy.network) ? ['proxy-port-any-address'] : [])]
      const mounts = hideMounts(policy)
      return { argv: landlockNsArgs(launcher, argv, policy, mounts), enforcement: unenforced.length ? 'partial' : 'full', unenforced, hidden: mounts.hide.map((h) => h.path) }
    },
  }
}
