/**
 * Running the hooks of one event for one call: select the hooks whose matcher
 * takes the tool's hook-visible name, run identical commands once, run them all
 * in parallel, audit each (`hook/invoked` before it starts, `hook/result` after),
 * resolve each no-answer by its `onError`, and combine: deny > ask > allow.
 */
import type { Session } from '@dsh/kernel'
import type { Execution, ToolResult } from '@dsh/tools'
import { cut, invokedEvent, resultEvent } from './audit.js'
import { hookInput } from './input.js'
import type { Launcher } from './launch.js'
import { combine, interpret } from './output.js'
import type { Snapshot } from './store.js'
import type { HookEvent, HookSpec, OnError, Verdict } from './types.js'

export interface DispatchEnv {
  /** the hook set to use now (re-reads changed settings files) */
  refresh(): Snapshot
  launcher: Launcher
  workspace: string
  onError: OnError
  /** seconds */
  defaultTimeout: number
  maxOutputBytes: number
  auditBytes: number
  /** our tool name → the name hooks see */
  toolName(name: string): string
  /** config problems already reported per session */
  reported: WeakMap<Session, Set<string>>
}

type Decided = Exclude<Verdict, { kind: 'no-answer' }>

function label(spec: HookSpec): string {
  const command = spec.command.length > 80 ? `${spec.command.slice(0, 77)}...` : spec.command
  return `${spec.event} hook ${JSON.stringify(command)}`
}

/** Identical commands run once: the longest timeout and the strictest onError of the copies. */
function unique(hooks: readonly HookSpec[], defaultTimeout: number): HookSpec[] {
  const byCommand = new Map<string, HookSpec>()
  for (const hook of hooks) {
    const seen = byCommand.get(hook.command)
    if (!seen) {
      byCommand.set(hook.command, hook)
      continue
    }
    const merged: HookSpec = { ...seen }
    merged.timeout = Math.max(seen.timeout ?? defaultTimeout, hook.timeout ?? defaultTimeout)
    if (seen.onError === 'deny' || hook.onError === 'deny') merged.onError = 'deny'
    else if (seen.onError === undefined || hook.onError === undefined) delete merged.onError
    byCommand.set(hook.command, merged)
  }
  return [...byCommand.values()]
}

function refused(event: HookEvent, reason: string): Decided {
  return event === 'PreToolUse' || event === 'PermissionRequest' ? { kind: 'deny', reason } : { kind: 'block', reason }
}

/** Report config problems to the session once each; under `deny` they refuse the call. */
async function checkProblems(env: DispatchEnv, snapshot: Snapshot, event: HookEvent, session: Session): Promise<Decided | undefined> {
  if (!snapshot.problems.length) return
  let seen = env.reported.get(session)
  if (!seen) env.reported.set(session, (seen = new Set()))
  for (const problem of snapshot.problems) {
    if (seen.has(problem.key)) continue
    seen.add(problem.key)
    try {
      await session.append('hook/config-error', { file: problem.file, message: cut(problem.message, env.auditBytes), effect: env.onError })
    } catch {
      return refused(event, `a hook settings problem could not be written to the session log: ${problem.message}`)
    }
  }
  if (env.onError === 'ignore') return
  const what = snapshot.problems.map((problem) => problem.message).join('; ')
  return refused(event, `hook settings cannot be used, so every call is refused until they are fixed: ${what}`)
}

async function runOne(env: DispatchEnv, spec: HookSpec, exec: Execution, toolName: string, input: string): Promise<Decided> {
  const timeoutMs = Math.round((spec.timeout ?? env.defaultTimeout) * 1000)
  try {
    await exec.session.append('hook/invoked', invokedEvent(exec.callId, spec, exec.name, toolName, timeoutMs))
  } catch (error) {
    // an unaudited hook never runs
    return refused(spec.event, `${label(spec)} could not be audited, so it did not run: ${(error as Error).message}`)
  }
  const outcome = await env.launcher.run({
    command: spec.command,
    input,
    cwd: env.workspace,
    env: { CLAUDE_PROJECT_DIR: env.workspace },
    timeoutMs,
    maxOutputBytes: env.maxOutputBytes,
    signal: exec.signal,
  })
  const raw = interpret(outcome, spec.event, label(spec))
  const onError = spec.onError ?? env.onError
  const decided: Decided = raw.kind !== 'no-answer' ? raw : onError === 'deny' ? refused(spec.event, raw.reason) : { kind: 'none' }
  try {
    await exec.session.append('hook/result', resultEvent(exec.callId, spec, exec.name, toolName, outcome, raw, decided.kind, env.auditBytes))
  } catch (error) {
    return refused(spec.event, `the result of ${label(spec)} could not be audited: ${(error as Error).message}`)
  }
  return decided
}

/** The combined decision of every hook of `event` that matches the call (`none` when none matches). */
export async function runEvent(env: DispatchEnv, event: HookEvent, exec: Execution, result?: ToolResult): Promise<Decided> {
  const snapshot = env.refresh()
  const problem = await checkProblems(env, snapshot, event, exec.session)
  if (problem) return problem
  const toolName = env.toolName(exec.name)
  const hooks = unique(snapshot.hooks.filter((hook) => hook.event === event && hook.matcher(toolName)), env.defaultTimeout)
  if (!hooks.length) return { kind: 'none' }
  const input = JSON.stringify(hookInput(event, exec, toolName, env.workspace, result))
  const verdicts = await Promise.all(hooks.map((hook) => runOne(env, hook, exec, toolName, input)))
  return combine(verdicts) as Decided
}
