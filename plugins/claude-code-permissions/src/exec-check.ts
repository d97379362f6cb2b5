/**
 * The check the sandbox runs for each exec of a confined call (its
 * `ExecRules`): the exec decided by the rules (exec-decide.ts), a refusal or
 * an ask recorded as `permission/decided` with `by: 'exec'`, the program and
 * its argv, before the answer goes back; an ask put to the approval service
 * for the call the exec belongs to (logged first, as every ask), the exec
 * held meanwhile: approved, it goes on once; anything else refuses it. An exec
 * of a call this plugin did not decide, or with no approval service, cannot
 * be asked about and is refused. An ask refused once is not asked again in
 * the same call for the same program and argv (a shell retries a refused exec
 * on every PATH entry that holds the program): it is refused, and recorded.
 */
import type { JsonObject, Session } from '@dsh/kernel'
import type { ApprovalGate, Execution } from '@dsh/tools'
import type { Outcome } from './decide.js'
import type { ExecFacts } from './exec-decide.js'
import { quoteArgv } from './exec-decide.js'
import type { PermissionMode } from './modes.js'
import { loadShellParser, shellParserLoaded } from './shell.js'

/** What the sandbox hands the check (its ExecRequest and ConfineCall). */
export interface ExecCheck {
  /** the program names a rule could refuse (exec-decide.ts execPrograms); absent: every exec is asked */
  programs?: readonly string[]
  /** what an exec of each listed program must hold for a rule to meet it (exec-decide.ts execNeeds) */
  needs?: Readonly<Record<string, readonly (readonly string[])[]>>
  check(request: ExecFacts & { pid: number }, call: { session: Session; callId: string }): Promise<{ allow: true } | { allow: false; reason: string; rule?: string }>
}

export interface ExecCheckDeps {
  engine(): { decideExec(facts: ExecFacts): { outcome: Outcome | undefined; mode: PermissionMode } } | undefined
  /** the call under way with this id (as the pipeline handed it to the plugin) */
  call(callId: string): Execution | undefined
  approval(): ApprovalGate | undefined
}

export function execChecker(deps: ExecCheckDeps): ExecCheck {
  // per call (gone with it): the asks a person or the policy refused, by program and argv
  const refusedAsks = new WeakMap<Execution, Set<string>>()
  return {
    async check(request, call) {
      const engine = deps.engine()
      if (!engine) return { allow: false, reason: 'the permission rules of claude-code-permissions are not loaded' }
      // a wrapper's argv (`sh -c …`) is read with the grammar
      if (!shellParserLoaded()) await loadShellParser()
      const facts: ExecFacts = { path: request.path, realPath: request.realPath, ...(request.interpreters ? { interpreters: request.interpreters } : {}), ...(request.loaded ? { loaded: request.loaded } : {}), argv: request.argv, truncated: request.truncated, ...(request.unresolved ? { unresolved: true } : {}) }
      const { outcome, mode } = engine.decideExec(facts)
      if (!outcome || outcome.decision === 'allow') return { allow: true }
      const program = request.realPath || request.path
      const exec = deps.call(call.callId)
      const key = JSON.stringify([program, request.argv])
      const refusedBefore = outcome.decision === 'ask' && exec !== undefined && refusedAsks.get(exec)?.has(key) === true
      call.session.write('permission/decided', {
        callId: call.callId,
        name: exec?.name ?? 'bash',
        decision: refusedBefore ? 'deny' : outcome.decision,
        mode,
        ...(outcome.rule ? { rule: outcome.rule.text, source: outcome.rule.source } : {}),
        by: 'exec',
        program,
        argv: [...request.argv],
      })
      const rule = outcome.rule?.text
      const line = quoteArgv(request.argv)
      if (outcome.decision === 'deny') return { allow: false, reason: `exec of ${line} refused: ${outcome.reason}`, ...(rule ? { rule } : {}) }
      if (refusedBefore) return { allow: false, reason: `exec of ${line} refused: ${outcome.reason}, and it was refused earlier in this call`, ...(rule ? { rule } : {}) }
      const approval = deps.approval()
      if (!exec || !approval) return { allow: false, reason: `exec of ${line} refused: ${outcome.reason}, and ${exec ? 'no approval service is running' : 'the call it belongs to cannot be asked about'}`, ...(rule ? { rule } : {}) }
      const answer = await approval.request({ exec: execAsked(exec, program, request.argv), reason: `exec of ${line}: ${outcome.reason}` })
      if (answer.kind === 'approved') return { allow: true }
      refusedAsks.set(exec, (refusedAsks.get(exec) ?? new Set()).add(key))
      return { allow: false, reason: `exec of ${line} refused: ${outcome.reason}; ${answer.kind}: ${answer.reason}`, ...(rule ? { rule } : {}) }
    },
  }
}

/** The call, as asked about at one of its execs: the same call, its arguments those of the exec. */
function execAsked(exec: Execution, program: string, argv: readonly string[]): Execution {
  const args: JsonObject = { command: quoteArgv(argv), exec: { program, argv: [...argv] } }
  return {
    callId: exec.callId,
    name: exec.name,
    arguments: args,
    session: exec.session,
    signal: exec.signal,
    nested: exec.nested,
    ...(exec.scope ? { scope: exec.scope } : {}),
    ...(exec.parent ? { parent: exec.parent } : {}),
  }
}
