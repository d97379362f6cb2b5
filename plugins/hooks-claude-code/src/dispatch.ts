/**
 * Running the hooks of one event: select the hooks whose matcher takes the
 * subject's value (the call's hook-visible tool name; for the notice events
 * the notification type, source or reason), run identical commands once, run
 * them all in parallel, audit each (`hook/invoked` before it starts,
 * `hook/result` after), resolve each no-answer by its `onError`, and combine:
 * deny > ask > allow. The notice events decide nothing: their hooks' failures
 * are recorded and their answers read as no decision.
 */
import { clientToolName } from './mcp-names.js'
import type { Session } from '@dsh/kernel'
import type { Execution, ToolResult } from '@dsh/tools'
import { cut, invokedEvent, resultEvent, type HookCall } from './audit.js'
import { hookInput } from './input.js'
import type { Launcher } from './launch.js'
import { combine, interpret } from './output.js'
import type { Snapshot } from './store.js'
import { NOTICE_EVENTS, type HookEvent, type HookSpec, type OnError, type Verdict } from './types.js'

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

/** What one event's hooks run about. */
export interface HookSubject {
  session: Session
  /** cancels the hooks (the call's signal); the notice events have none */
  signal?: AbortSignal
  /** the value the matchers test */
  match: string
  /** other names of the same subject a matcher may take (dsh's tool as an MCP client names it) */
  also?: readonly string[]
  /** the call the event is about, if any */
  call?: HookCall
  /** the JSON the hooks read on stdin */
  input: object
}

function refused(event: HookEvent, reason: string): Decided {
  if (NOTICE_EVENTS.has(event)) return { kind: 'none' }
  return event === 'PreToolUse' || event === 'PermissionRequest' ? { kind: 'deny', reason } : { kind: 'block', reason }
}

/** Report config problems to the session once each; under `deny` they refuse the call (a notice goes on with the last good hooks). */
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
  if (env.onError === 'ignore' || NOTICE_EVENTS.has(event)) return
  const what = snapshot.problems.map((problem) => problem.message).join('; ')
  return refused(event, `hook settings cannot be used, so every call is refused until they are fixed: ${what}`)
}

async function runOne(env: DispatchEnv, spec: HookSpec, subject: HookSubject, input: string): Promise<Decided> {
  const timeoutMs = Math.round((spec.timeout ?? env.defaultTimeout) * 1000)
  const { session } = subject
  try {
    await session.append('hook/invoked', invokedEvent(subject.call, spec, subject.match, timeoutMs))
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
    ...(subject.signal ? { signal: subject.signal } : {}),
  })
  const raw = interpret(outcome, spec.event, label(spec))
  const onError = spec.onError ?? env.onError
  const decided: Decided = NOTICE_EVENTS.has(spec.event) ? { kind: 'none' }
    : raw.kind !== 'no-answer' ? raw : onError === 'deny' ? refused(spec.event, raw.reason) : { kind: 'none' }
  try {
    await session.append('hook/result', resultEvent(subject.call, spec, subject.match, outcome, raw, decided.kind, env.auditBytes))
  } catch (error) {
    return refused(spec.event, `the result of ${label(spec)} could not be audited: ${(error as Error).message}`)
  }
  // a hook that refused or asked is named in the call's error.source
  return decided.kind === 'deny' || decided.kind === 'ask' || decided.kind === 'block' ? { ...decided, command: spec.command } : decided
}

/** The verdict of an event none of whose hooks applies (shared: nothing is made for it). */
export const NO_HOOKS: Decided = Object.freeze({ kind: 'none' })

/** Whether `event` has work: a hook whose matcher takes `match`, or a settings problem to report (and under `deny`, refuse by). */
export function hasWork(snapshot: Snapshot, event: HookEvent, match: string, also: readonly string[] = []): boolean {
  return snapshot.problems.length > 0 || snapshot.hooks.some((hook) => hook.event === event && takes(hook, match, also))
}

/** A hook runs once for its subject, whichever of the subject's names its matcher takes. */
function takes(hook: Snapshot['hooks'][number], match: string, also: readonly string[]): boolean {
  return hook.matcher(match) || also.some((name) => hook.matcher(name))
}

/** The combined decision of every hook of `event` whose matcher takes the subject (`none` when none does). */
export async function runHooks(env: DispatchEnv, event: HookEvent, subject: HookSubject, snapshot = env.refresh()): Promise<Decided> {
  const problem = await checkProblems(env, snapshot, event, subject.session)
  if (problem) return problem
  const hooks = unique(snapshot.hooks.filter((hook) => hook.event === event && takes(hook, subject.match, subject.also ?? [])), env.defaultTimeout)
  if (!hooks.length) return NO_HOOKS
  const input = JSON.stringify(subject.input)
  const verdicts = await Promise.all(hooks.map((hook) => runOne(env, hook, subject, input)))
  return combine(verdicts) as Decided
}

/**
 * The hooks of a tool event for one call. When none applies it answers
 * `NO_HOOKS` at once: no hook input is built and nothing waits, so nothing of
 * the call is held past it (the input and the awaits of every call, kept alive
 * by the collections they lived through, made the young generation grow).
 */
export function runEvent(env: DispatchEnv, event: HookEvent, exec: Execution, result?: ToolResult): Decided | Promise<Decided> {
  const snapshot = env.refresh()
  const toolName = env.toolName(exec.name)
  // a hook written for the name Claude Code calls dsh's tool by (`mcp__dsh__bash`) applies here too
  const also = [clientToolName(exec.name)]
  if (!hasWork(snapshot, event, toolName, also)) return NO_HOOKS
  return runHooks(env, event, {
    session: exec.session,
    signal: exec.signal,
    match: toolName,
    also,
    call: { callId: exec.callId, tool: exec.name, toolName },
    input: hookInput(event, exec, toolName, env.workspace, result),
  }, snapshot)
}
