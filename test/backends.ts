/**
 * Which sandbox backends this machine has, for tests that depend on one. The
 * answers come from the real providers' probes, the ones a kernel runs, so a
 * test can assert what the backend the machine really uses guarantees, and a
 * test of a backend the machine lacks is skipped with one printed line saying
 * why. Decided while collecting (top-level await), as `skipIf` needs it then.
 *
 *   const backend = await sandboxBackend()          // 'bwrap' | 'landlock' | undefined on Linux
 *   describe.skipIf(await lacks('bwrap', 'the bwrap attack suite'))(...)
 */
import { Context } from 'cordis'
import { SandboxService, type LocalBackend, type SandboxStatus } from '@dsh/sandbox'

let status: Promise<SandboxStatus> | undefined

/** The local chain's probe results here, probed once per test file. */
export function sandboxStatus(): Promise<SandboxStatus> {
  status ??= new SandboxService(new Context(), {}).probe()
  return status
}

/** The backend a kernel with the default chain confines with on this machine, if any. */
export async function sandboxBackend(): Promise<LocalBackend | undefined> {
  return (await sandboxStatus()).chosen as LocalBackend | undefined
}

/** Why `backend` cannot run here, or undefined when it can. */
export async function unavailable(backend: LocalBackend): Promise<string | undefined> {
  const candidate = (await sandboxStatus()).candidates.find((c) => c.name === backend)
  if (!candidate) return `${backend} is not a backend for ${process.platform}`
  if (candidate.probe?.available) return undefined
  return candidate.probe?.reason ?? `${backend} was not probed`
}

const said = new Set<string>()

/** Print one line per reason, once per test file. */
function say(line: string): void {
  if (said.has(line)) return
  said.add(line)
  console.warn(line)
}

/** `skip`, after printing (when true) one line saying what is skipped and why. */
export function skipWhen(skip: boolean, what: string, why: string): boolean {
  if (skip) say(`skipping ${what}: ${why}`)
  return skip
}

/** True when `backend` cannot run here, after printing one line saying what is skipped and why. */
export async function lacks(backend: LocalBackend, what: string): Promise<boolean> {
  const why = await unavailable(backend)
  return skipWhen(why !== undefined, what, `the ${backend} backend is unavailable here (${why})`)
}

/** True unless the machine confines with `backend`, after printing one line saying what is skipped and why. */
export async function notUsing(backend: LocalBackend, what: string): Promise<boolean> {
  const chosen = await sandboxBackend()
  return skipWhen(chosen !== backend, what, `it holds for the ${backend} backend, and this machine confines with ${chosen ?? 'no backend'}`)
}

/** The local backends of Linux, in the default chain's order. */
export const LINUX_BACKENDS: readonly LocalBackend[] = ['bwrap', 'landlock-ns', 'landlock']

/** Why each Linux backend cannot run here, by name (undefined for one that can). */
export async function unavailableLinuxBackends(): Promise<Record<string, string | undefined>> {
  return Object.fromEntries(await Promise.all(LINUX_BACKENDS.map(async (backend) => [backend, await unavailable(backend)] as const)))
}

/** Which Linux backends `what` must skip here (each said once, as `lacks` says it), by name. */
export async function lackingLinuxBackends(what: (backend: LocalBackend) => string): Promise<Record<string, boolean>> {
  return Object.fromEntries(await Promise.all(LINUX_BACKENDS.map(async (backend) => [backend, await lacks(backend, what(backend))] as const)))
}
