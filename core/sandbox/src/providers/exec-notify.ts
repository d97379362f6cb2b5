/**
 * Whether a launcher can stop each exec of a confined command and ask the host
 * (`landlock-run --exec-notify`, seccomp user notification with its CONTINUE
 * answer, Linux 5.5): what its `--probe` says as `exec_notify`, read once per
 * launcher. bwrap runs the same launcher on the same kernel, so the host's
 * answer holds inside it too. See docs/decisions/2026-12-02-exec-rules.md.
 */
import { runProbeCommand } from '../probe/command.js'
import type { ResolvedPolicy } from '../types.js'

const answers = new Map<string, Promise<boolean>>()

/** The launcher's `exec_notify` from a `--probe` line already read. */
export function probeStopsExec(details: unknown): boolean {
  return !!details && typeof details === 'object' && (details as { exec_notify?: unknown }).exec_notify === true
}

/** Run `launcher --probe` (once per path) and read `exec_notify`; false when the probe fails. */
export function launcherStopsExec(launcher: string): Promise<boolean> {
  let answer = answers.get(launcher)
  if (!answer) {
    answer = runProbeCommand(launcher, ['--probe'], { env: {}, timeoutMs: 10_000 })
      .then((run) => run.exitCode === 0 && probeStopsExec(JSON.parse(run.stdout)))
      .catch(() => false)
    answers.set(launcher, answer)
  }
  return answer
}

/** The launcher's arguments for a policy whose call has an exec listener (`socket`: where the launcher finds it). */
export function execNotifyArgs(policy: ResolvedPolicy, socket: string | undefined = policy.execNotify): string[] {
  if (!socket) return []
  const programs = policy.execRules?.programs
  if (!programs) return ['--exec-notify', socket]
  const needs = policy.execRules?.needs ?? {}
  // Why only a listed program's: the launcher asks about every exec of a name listed without needs
  const matches = programs.flatMap((name) => (Object.hasOwn(needs, name) ? needs[name].map((list) => ['--exec-match', [name, ...list].join(' ')]) : []))
  return ['--exec-notify', socket, ...programs.flatMap((name) => ['--exec-program', name]), ...matches.flat()]
}
