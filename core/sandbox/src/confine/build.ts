/**
 * One confined command made ready, once the backend is chosen: the
 * protected entries reclaimed and leased, the provider's argv checked
 * (confine-shape.ts), the environment, the exec listener and proxy lease
 * tied to the cleanup — and, where the pool may serve it, the request for a
 * sandbox built ahead (process/slots.ts), refilled by the cleanup.
 */
import { dirname } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'
import { confinedEnv, spawnEnvOf } from '../policy/env.js'
import { leaseProtected, reclaimProtected, recordReclaimed } from '../ledger/lease.js'
import { policyProtected } from '../protected/entries.js'
import { registeredFiles } from '../protected/registry.js'
import type { ConfineCall } from '../network/events.js'
import type { ProxyLease } from '../network/proxy.js'
import { confineShape } from './shape.js'
import { openExecNotify, type ExecNotifyLease } from '../exec/notify-server.js'
import type { SlotPool, SlotRequest } from '../process/slots.js'
import type { Candidate } from './backend-chain.js'
import type { Confined, ResolvedPolicy, SandboxProvider } from '../types.js'

/** The local backends whose argv ends with landlock-run's own `--` and the command: those a slot can be built for. */
const SLOT_BACKENDS = new Set(['landlock', 'landlock-ns', 'bwrap'])

export interface BuildOptions {
  proxy?: ProxyLease
  call?: ConfineCall
  execs?: ExecNotifyLease
  /** the service's pool, unless `sandbox.pool` is false */
  pool?: SlotPool
}

export function buildConfined(chosen: Candidate, argv: readonly string[], policy: ResolvedPolicy, { proxy, call, execs, pool }: BuildOptions): Confined {
  const { provider } = chosen
  // Why first: a protected symlink that leads to a writable root is a policy that cannot be enforced (INVALID_POLICY)
  let protectedPaths = policyProtected(policy).paths
  // Why before the backend sees them: what a dead dsh process's call left is put back, and the backend binds that
  const reclaimed = reclaimProtected(protectedPaths, policy.writableRoots)
  if (reclaimed.length) protectedPaths = policyProtected(policy).paths
  const { made, enforcement, unenforced, hidden, restores: own } = confineShape(provider, argv, policy, execChecked(provider, policy, !!execs))
  const restores = withRegistered(own, policy)
  // Why before anything runs: a snapshot over its bound refuses the call (SANDBOX_UNAVAILABLE)
  const lease = leaseProtected(protectedPaths, policy.writableRoots, restores, policy.registeredPaths)
  if (call) recordReclaimed(call, [...reclaimed, ...lease.reclaimed])
  const env = confinedEnv(policy)
  const spawnEnv = spawnEnvOf(env, policy.env)
  // Why not with a proxy or exec rules: their listener is the call's own, and a credential in the environment is per call
  const slot = pool && chosen.source === 'local' && SLOT_BACKENDS.has(provider.name) && !proxy && !execs && !Object.keys(spawnEnv).length
    ? slotRequest(pool, made.argv, argv, `${made.backend ?? provider.name}\0${policy.mode}`, protectedPaths)
    : undefined
  return Object.freeze({
    argv: Object.freeze([...made.argv]),
    backend: made.backend ?? provider.name,
    enforcement,
    unenforced: Object.freeze([...unenforced]),
    env,
    spawnEnv,
    hidden: Object.freeze([...hidden]),
    restores: Object.freeze([...restores]),
    ...(slot ? { slot: slot.request } : {}),
    cleanup: () => {
      // Why first: once the command is gone nothing may use its listener
      proxy?.close()
      execs?.close()
      const put = lease.release()
      // Why after the release: the next slot's key is taken on the view as the next call will find it
      slot?.refill()
      return put
    },
  })
}

/** The pool's request when the argv is the launcher's up to its `--`, then the command (anything else: none). */
function slotRequest(pool: SlotPool, made: readonly string[], command: readonly string[], lane: string, watched: readonly string[]): { request: SlotRequest; refill: () => void } | undefined {
  const at = made.length - command.length
  if (at < 2 || made[at - 1] !== '--' || command.some((a, i) => made[at + i] !== a)) return undefined
  const request = pool.request(lane, made.slice(0, at), command, watched)
  return { request: Object.freeze({ take: request.take, prepare: request.prepare }), refill: request.refill }
}

/**
 * The backend's copy-and-put-back list with the registered regular files added: even where a
 * backend binds them read-only, a command that renames an ancestor away and plants a file at the
 * path would otherwise leave it there; put back whole, the next load reads what was there before.
 * Not one directly in a writable root (`./dsh.yml`): the root itself cannot be renamed from inside.
 */
export function withRegistered(restores: readonly string[], policy: ResolvedPolicy): readonly string[] {
  if (!policy.registeredPaths?.length) return restores
  const files = registeredFiles(policy.registeredPaths).filter((path) => !restores.includes(path) && !policy.writableRoots.includes(dirname(path)))
  return files.length ? [...restores, ...files] : restores
}

/**
 * The call's exec listener, when its policy has exec rules, a call to record them for, and a
 * backend whose kernel can stop each exec; undefined otherwise (then `exec-rules` is unenforced).
 */
export async function openExecs(provider: SandboxProvider, policy: ResolvedPolicy, call: ConfineCall | undefined): Promise<ExecNotifyLease | undefined> {
  if (!policy.execRules || !call || !canStopExec(provider)) return undefined
  try {
    return await openExecNotify(policy.execRules, call)
  } catch (error) {
    throw new KernelError('SANDBOX_UNAVAILABLE', `the sandbox could not listen for the command's execs: ${describeError(error)}`, { cause: error })
  }
}

function canStopExec(provider: SandboxProvider): boolean {
  try {
    return typeof provider.execNotify === 'function' && provider.execNotify() === true
  } catch {
    return false
  }
}

/** For confineShape: whether the policy's exec rules hold at each exec (`checked`), or are text matching alone. */
export function execChecked(provider: SandboxProvider, policy: ResolvedPolicy, checked: boolean): { rules: boolean; checked: boolean } {
  return { rules: !!policy.execRules, checked: checked && canStopExec(provider) }
}

export function noHostProxy(provider: SandboxProvider): KernelError {
  return new KernelError('SANDBOX_UNAVAILABLE', `sandbox backend ${provider.name} cannot confine the network by host (network: { allow }); use network "off" or "on" with it`)
}
