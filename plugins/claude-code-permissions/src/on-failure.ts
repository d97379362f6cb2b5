/** Codex's `on-failure` policy: a read-only Bash command that failed on what looks like a sandbox denial is offered once again with workspace-write, through the whole pipeline (docs/decisions/2026-12-01-on-failure-rerun.md). */
import type { JsonObject, SandboxMode, Session } from '@dsh/kernel'
import type { ContentBlock, Execution, PostExecuteInput, ToolResult, ExecuteInput, BlockDecision } from '@dsh/tools'

/** Lower-case phrases of the errors a write refused by the sandbox prints (EROFS, EACCES, EPERM). */
export const SANDBOX_DENIAL_PHRASES = ['read-only file system', 'permission denied', 'operation not permitted'] as const

/** Longest quoted failure line in the justification. */
const QUOTE_MAX = 200

export interface FailedRun {
  exitCode: unknown
  stdout: unknown
  stderr: unknown
}

/**
 * The line of a failed command's output that names a sandbox denial, or
 * undefined when the run did not fail (exit 0, killed by a signal) or names none.
 */
export function sandboxDenialLine(run: FailedRun): string | undefined {
  if (typeof run.exitCode !== 'number' || run.exitCode === 0) return undefined
  for (const text of [run.stderr, run.stdout]) {
    if (typeof text !== 'string') continue
    for (const line of text.split('\n')) {
      const lower = line.toLowerCase()
      if (SANDBOX_DENIAL_PHRASES.some((phrase) => lower.includes(phrase))) {
        const trimmed = line.trim()
        return trimmed.length > QUOTE_MAX ? `${trimmed.slice(0, QUOTE_MAX)}…` : trimmed
      }
    }
  }
  return undefined
}

interface Tools {
  get(name: string): { parameters?: { properties?: Record<string, unknown> } } | undefined
  execute(input: ExecuteInput): Promise<ToolResult>
}

interface Modes {
  resolveMode(session: Session): SandboxMode
}

export interface RerunEnv {
  tools: Tools
  /** the sandbox service, if one runs (without it nothing says the call was confined) */
  sandbox(): Modes | undefined
  /** the name rules see for one of our tools (`bash` → `Bash`) */
  ruleTool(name: string): string
}

function note(text: string): ContentBlock {
  return { type: 'text', text }
}

/** Whether this call's result is one to offer a rerun for, and the failure line to quote. */
function offerFor(env: RerunEnv, exec: Execution, result: ToolResult): string | undefined {
  if (result.isError || exec.signal.aborted) return undefined
  if (env.ruleTool(exec.name) !== 'Bash') return undefined
  // a call that already asked to escalate (a rerun among them) is never offered again
  if (exec.arguments.sandbox_permissions === 'require_escalated') return undefined
  // the tool must take Codex's escalation request, or the rerun could not carry it
  if (!env.tools.get(exec.name)?.parameters?.properties?.sandbox_permissions) return undefined
  // only what ran below workspace-write; read-only never runs unconfined (no backend is an error, not a run)
  const sandbox = env.sandbox()
  if (!sandbox || sandbox.resolveMode(exec.session) !== 'read-only') return undefined
  const value = result.value
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { exitCode, stdout, stderr } = value
  return sandboxDenialLine({ exitCode, stdout, stderr })
}

/** The `tools/post-execute` listener of preset on-failure. */
export function onFailureRerun(env: RerunEnv) {
  return async ({ exec }: PostExecuteInput, next: () => Promise<ToolResult | BlockDecision>): Promise<ToolResult | BlockDecision> => {
    const result = await next()
    if ((result as BlockDecision).kind === 'block') return result
    const failure = offerFor(env, exec, result as ToolResult)
    if (failure === undefined) return result
    const original = result as ToolResult
    const exit = (original.value as JsonObject).exitCode
    const args: JsonObject = {
      ...exec.arguments,
      sandbox_permissions: 'require_escalated',
      justification: `the command failed in the read-only sandbox (exit code ${exit}: "${failure}"); run it once more with workspace-write`,
    }
    const input: ExecuteInput = { callId: `${exec.callId}:rerun`, name: exec.name, arguments: args, session: exec.session, signal: exec.signal }
    if (exec.scope) input.scope = exec.scope
    if (exec.parent) input.parent = exec.parent
    const rerun = await env.tools.execute(input)
    if (rerun.isError) {
      const why = rerun.error?.message ?? 'the rerun failed'
      return { ...original, content: [...original.content, note(`[not run again with workspace-write: ${why}]`)] }
    }
    return { ...rerun, content: [note(`[the command failed in the read-only sandbox; approved, it ran again with workspace-write (call ${input.callId})]`), ...rerun.content] }
  }
}
