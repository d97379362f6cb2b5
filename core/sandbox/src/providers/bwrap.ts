/** The bubblewrap backend, with the command run through landlock-run inside, since bwrap's writable roots alone would let a root command plant a setuid binary (docs/decisions/2026-11-30-sandbox-chain.md; the view: docs/architecture.md, Sandbox). */
import { lstatSync } from 'node:fs'
import { dirname, sep } from 'node:path'
import { checkBinary, findSystemBinary } from '../probe/binaries.js'
import { confinedEnv, launcherEnvArgs } from '../policy/env.js'
import { bundledLauncher } from '../probe/launcher.js'
import { launcherLimitArgs, limitsUnenforced } from '../policy/limits.js'
import { isProxied } from '../network/policy.js'
import { isInside } from '../paths.js'
import { probeReadOnlyWrite } from '../probe/profile.js'
import { policyProtected } from '../protected/entries.js'
import { hideMounts, launcherHideArgs, type HideMounts } from './hide-mounts.js'
import { inodeArgs } from './inode-args.js'
import { execNotifyArgs, launcherStopsExec } from './exec-notify.js'
import type { ProbeResult, ProviderConfined, ResolvedPolicy, SandboxProvider } from '../types.js'

export interface BwrapOptions {
  /** the bwrap binary (default: found in the system directories at probe time) */
  bwrap?: string
  /** the launcher run inside (default: the one this package ships, checked against its manifest) */
  launcher?: string
}

/**
 * Protected paths of the writable roots (the names, and the targets of
 * protected symlinks and `.git` files inside the roots), split by what
 * bwrap can do with them, and the directories between a root and a nested
 * one (`sub` of `sub/.git`), which are bound onto themselves: rename(2) and
 * rmdir(2) of a mount point fail with EBUSY, so no ancestor can be moved
 * away and replaced by a copy the command can write
 * (docs/decisions/2026-12-02-protected-ancestors.md).
 */
export function protectedBinds(policy: ResolvedPolicy): { existing: string[]; absent: string[]; symlinks: string[]; ancestors: string[]; inodes: Map<string, string> } {
  const out = { existing: [] as string[], absent: [] as string[], symlinks: [] as string[], ancestors: [] as string[], inodes: new Map<string, string>() }
  const paths = policyProtected(policy).paths
  for (const path of paths) {
    let st
    try {
      // Why bigint: the identity is handed to the launcher (inode-args.ts), and inodes may exceed 2^53
      st = lstatSync(path, { bigint: true })
    } catch {
      out.absent.push(path)
      continue
    }
    out.inodes.set(path, `${st.dev}:${st.ino}`)
    // Why apart: the link itself stays replaceable; its target is in the list on its own and bound there
    ;(st.isSymbolicLink() ? out.symlinks : out.existing).push(path)
  }
  out.ancestors = protectedAncestors(policy.writableRoots, paths, out.existing, out.inodes)
  return out
}

/**
 * The directories strictly between a writable root and each protected path
 * beneath it, shallowest first, each once; not those inside a protected
 * entry bound read-only (nothing there can be renamed), nor a root itself
 * (already a mount point). Only real directories: the scan never follows a
 * link, so a path that is not one now changed since, and bwrap would follow it.
 */
export function protectedAncestors(roots: readonly string[], paths: readonly string[], readOnly: readonly string[], inodes?: Map<string, string>): string[] {
  const out = new Set<string>()
  for (const path of paths) {
    const root = roots.filter((r) => isInside(r, path) && r !== path).sort((a, b) => b.length - a.length)[0]
    if (!root) continue
    const chain: string[] = []
    for (let dir = dirname(path); dir !== root && isInside(root, dir); dir = dirname(dir)) chain.unshift(dir)
    for (const dir of chain) {
      if (roots.includes(dir) || readOnly.some((ro) => isInside(ro, dir))) continue
      let st
      try {
        st = lstatSync(dir, { bigint: true })
      } catch {
        break
      }
      if (!st.isDirectory()) break
      out.add(dir)
      inodes?.set(dir, `${st.dev}:${st.ino}`)
    }
  }
  // Why shallowest first: a bind of a parent made after its child's would cover the child's
  return [...out].sort((a, b) => a.split(sep).length - b.split(sep).length)
}

/**
 * Whether a host path is covered inside by the private /tmp, /proc or /dev
 * and must be bound again to be seen; anything else the read-only root
 * already shows. Why ask: bwrap reads the whole mount table again for
 * every bind (about 0.2 ms each, docs/decisions/2026-11-30-landlock-launcher.md).
 */
export function coveredInside(path: string): boolean {
  return ['/tmp', '/proc', '/dev'].some((dir) => isInside(dir, path))
}

/** Where the proxy's unix socket appears inside the sandbox (on its private /tmp, where no host file can be in the way). */
export const BRIDGED_PROXY_SOCKET = '/tmp/.dsh-proxy.sock'

/** Where the call's exec listener appears inside the sandbox (beside the proxy's, on the private /tmp). */
export const BRIDGED_EXEC_SOCKET = '/tmp/.dsh-exec.sock'

/** The launcher's network arguments: none (on), --no-net (off), or the proxy's port and the relay (hosts). */
function networkArgs(policy: ResolvedPolicy): string[] {
  if (policy.network === 'off') return ['--no-net']
  if (!isProxied(policy.network)) return []
  if (!policy.proxy?.socket) throw new Error('network lists hosts but the call has no proxy socket')
  return ['--net-proxy', String(policy.proxy.port), '--net-forward', BRIDGED_PROXY_SOCKET]
}

/**
 * Who makes /proc, the minimal /dev and the read policy's covers: bwrap
 * (`--proc`, `--dev`, `--tmpfs`/`--ro-bind /dev/null` per denied path, each
 * bind another read of the mount table), or the launcher inside
 * (`--private-mounts --mount-proc --mount-dev --hide`, with CAP_SYS_ADMIN
 * in bwrap's user namespace until it drops every capability, before its
 * ruleset, filter and exec). The same mounts either way; the launcher's
 * cost ~0.4 ms less a bind. See
 * docs/decisions/2026-12-01-private-mounts.md.
 */
export type BwrapMounts = 'launcher' | 'bwrap'

/** Whether the launcher can make the mounts for this policy: not when a bind lies under /proc or /dev, which its own would cover. */
export function launcherMountsFit(policy: ResolvedPolicy): boolean {
  return ![policy.workspace, ...policy.writableRoots].some((path) => isInside('/dev', path) || isInside('/proc', path))
}

/**
 * Whether the launcher can make the private /tmp too (`--mount-tmp`, the
 * workspace bound again with `--mount-ro`): in a call without writable roots
 * (bwrap binds those, writable, onto its own /tmp) or a bridged proxy socket
 * (bound at a fixed path on it), where every path shown again under /tmp lies
 * in the workspace. Then bwrap makes one bind (the root) and reads the mount
 * table once, not three times.
 */
export function launcherTmpFits(policy: ResolvedPolicy, mounts: HideMounts): boolean {
  return policy.mode !== 'workspace-write' && !policy.proxy?.socket && !policy.execNotify &&
    mounts.reveal.every((path) => !isInside('/tmp', path) || isInside(policy.workspace, path))
}

export function bwrapArgs(bwrap: string, launcher: string, argv: readonly string[], policy: ResolvedPolicy, mounts: HideMounts = hideMounts(policy), by: BwrapMounts = 'bwrap'): string[] {
  const net = networkArgs(policy)
  const inner = by === 'launcher' && launcherMountsFit(policy)
  const tmp = inner && launcherTmpFits(policy, mounts)
  const args = [
    bwrap,
    '--unshare-user', '--unshare-pid', '--unshare-ipc', ...(policy.network !== 'on' ? ['--unshare-net'] : []),
    // Why no --new-session: the launcher inside leaves the terminal itself (its own process group,
    // TIOCNOTTY), and a new session would cost a scheduler autogroup per call
    '--die-with-parent', '--cap-drop', 'ALL',
    // Why these two, in bwrap's user namespace only: CAP_SYS_ADMIN for the launcher's mounts,
    // CAP_SETPCAP to empty its bounding set right after (it refuses to run with capabilities it cannot drop)
    ...(inner ? ['--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP'] : []),
    '--ro-bind', '/', '/',
    // Why this order: later mounts cover earlier ones, so a workspace under /tmp is bound after the private /tmp
    ...(tmp ? [] : ['--tmpfs', '/tmp']),
    ...(inner ? [] : ['--proc', '/proc', '--dev', '/dev']),
    // Why: a launcher installed under /tmp (a checkout there) would be hidden by the private /tmp
    ...(!tmp && coveredInside(launcher) ? ['--ro-bind', launcher, launcher] : []),
    // Why a bind, not a path under the workspace: the socket is the host's, in a directory only the proxy can write
    ...(policy.proxy?.socket ? ['--bind', policy.proxy.socket, BRIDGED_PROXY_SOCKET] : []),
    ...(policy.execNotify ? ['--bind', policy.execNotify, BRIDGED_EXEC_SOCKET] : []),
  ]
  if (policy.mode === 'workspace-write') {
    for (const root of policy.writableRoots) args.push('--bind', root, root)
    const binds = protectedBinds(policy)
    // Why before the read-only binds: each ancestor's bind would otherwise cover the entries beneath it
    for (const dir of binds.ancestors) args.push('--bind', dir, dir)
    for (const path of binds.existing) args.push('--ro-bind', path, path)
  } else if (coveredInside(policy.workspace) && !tmp) {
    args.push('--ro-bind', policy.workspace, policy.workspace)
  }
  if (!inner) args.push(...hideArgs(mounts))
  // Why --no-supervisor: the launcher is PID 2 under bwrap's reaper, which exits with it and takes
  // the whole PID namespace along, so a supervising process inside would only cost a clone and two wake-ups
  // With exec rules the supervisor stays: it answers each exec (and then mounts in a copy of the namespace)
  const supervised = !!policy.execNotify
  args.push('--chdir', policy.workspace, '--', launcher, ...(supervised ? [] : ['--no-supervisor']))
  // Why in place: bwrap's mount namespace is the command's own (the launcher checks it), and a copy
  // of it would be one more namespace to drop at exit, each an expedited RCU grace period the call waits for
  if (inner) args.push('--private-mounts', ...(supervised ? [] : ['--mounts-in-place']), '--mount-proc', '--mount-dev')
  // Why the workspace before the covers: a denied path inside it is covered on the bind, not beneath it
  if (tmp) args.push('--mount-tmp', ...(isInside('/tmp', policy.workspace) ? ['--mount-ro', policy.workspace] : []))
  if (inner) args.push(...launcherHideArgs(mounts))
  args.push(...launcherEnvArgs(confinedEnv(policy), policy.env), ...launcherLimitArgs(policy.limits), '--ro', '/', '--rw', '/tmp', '--rw', '/dev')
  // Why: bwrap bound each root by name; the launcher's rule on it must be on the directory the host resolved
  if (policy.mode === 'workspace-write') args.push(...inodeArgs(policy.writableRoots))
  for (const root of policy.writableRoots) args.push('--rw', root)
  args.push(...net, ...execNotifyArgs(policy, policy.execNotify ? BRIDGED_EXEC_SOCKET : undefined), '--', ...argv)
  return args
}

/** bwrap's arguments for the read policy's covers (hide-mounts.ts). */
function hideArgs(mounts: HideMounts): string[] {
  const args = mounts.hide.flatMap(({ path, directory }) => (directory ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]))
  for (const path of mounts.reveal) args.push('--ro-bind', path, path)
  return args
}

export function bwrapUnenforced(policy: ResolvedPolicy): string[] {
  const gaps: string[] = []
  if (policy.mode === 'workspace-write') {
    const { absent, symlinks } = protectedBinds(policy)
    if (absent.length) gaps.push('absent-protected-paths')
    if (symlinks.length) gaps.push('protected-symlinks')
    if (policyProtected(policy).truncated) gaps.push('deep-protected-paths')
  }
  if (policy.network === 'on') gaps.push('pathname-unix-sockets')
  return [...gaps, ...limitsUnenforced()]
}

export function bwrapProvider(options: BwrapOptions = {}): SandboxProvider {
  let bwrap: string | undefined
  let launcher: string | undefined
  let by: BwrapMounts = 'bwrap'
  let stopsExec = false
  return {
    name: 'bwrap',
    platforms: ['linux'],
    networkProxy: 'unix',
    execNotify: () => stopsExec,
    async probe(): Promise<ProbeResult> {
      const found = options.bwrap ? checkBinary(options.bwrap) : findSystemBinary('bwrap')
      if ('reason' in found) return { available: false, reason: found.reason }
      const inner = options.launcher ? checkBinary(options.launcher) : bundledLauncher()
      if ('reason' in inner) return { available: false, path: found.path, reason: `the launcher run inside bwrap: ${inner.reason}` }
      // Why both: a bwrap that refuses --cap-add (installed setuid, for a caller who is not root) still
      // confines as fully with its own mounts, only slower
      let write = await probeReadOnlyWrite('bwrap', (argv, policy) => bwrapArgs(found.path, inner.path, argv, policy, undefined, 'launcher'))
      let mounts: BwrapMounts = 'launcher'
      const details: Record<string, string> = { launcher: inner.path }
      if (!write.available) {
        details.launcherMounts = write.reason
        write = await probeReadOnlyWrite('bwrap', (argv, policy) => bwrapArgs(found.path, inner.path, argv, policy, undefined, 'bwrap'))
        mounts = 'bwrap'
      }
      if (write.available) [bwrap, launcher, by, stopsExec] = [found.path, inner.path, mounts, await launcherStopsExec(inner.path)]
      // execNotify: whether Bash rules can hold at every exec here (exec-rules otherwise)
      return { available: write.available, reason: write.reason, path: found.path, details: { ...details, mounts, execNotify: stopsExec } }
    },
    confine(argv, policy): ProviderConfined {
      if (!bwrap || !launcher) throw new Error('bwrap provider used before a successful probe')
      const unenforced = bwrapUnenforced(policy)
      const mounts = hideMounts(policy)
      return { argv: bwrapArgs(bwrap, launcher, argv, policy, mounts, by), enforcement: unenforced.length ? 'partial' : 'full', unenforced, hidden: mounts.hide.map((h) => h.path) }
    },
  }
}
