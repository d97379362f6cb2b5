/**
 * After the guards: a call whose tool needs a higher sandbox mode than the
 * one it would run under is refused here, before its body, as `DENIED` with
 * the reason and the way to allow it — not left to fail inside the tool as
 * `TOOL_FAILED`. An ask approved in gate 1 has already raised the call's
 * mode to what it needs (pre-execute.ts), so such a call passes.
 */
import { errorResult } from '../results.js'
import type { SandboxMode } from '@dsh/kernel'
import { describeModeGrant, modeAbove, requiredModeOf } from '../required-mode.js'
import type { ToolResult } from '../types.js'
import type { Call, PipelineEnv, Prepared } from './state.js'
import { sourceOf } from './sources.js'

export function checkMode(env: PipelineEnv, call: Call, ready: Extract<Prepared, { kind: 'ready' }>, approved: SandboxMode | undefined): ToolResult | undefined {
  const { callId, name } = call
  const required = requiredModeOf(ready.entry.def, ready.exec.arguments)
  if ('problem' in required) return errorResult(callId, name, 'DENIED', required.problem, sourceOf('mode', ready.entry.ownerName, 'requiredMode'))
  if (!required.mode) return undefined
  // without a sandbox service nothing resolves modes: the tool enforces its own policy
  const sandbox = env.sandbox()
  if (!sandbox) return undefined
  const mode = sandbox.resolveMode(call.session, approved)
  if (!modeAbove(required.mode, mode)) return undefined
  return errorResult(callId, name, 'DENIED',
    `${name} needs the sandbox mode ${required.mode} (to ${describeModeGrant(required.mode)}), and this call would run under ${mode}. ` +
    `To allow it: approve it when it asks — an ask from a permission rule or mode (claude-code-permissions), a hook or any listener runs that one call with ${required.mode} once approved — ` +
    `or run the session in ${required.mode} (sandbox.mode in dsh.yml, or a sandbox/mode event).`,
    sourceOf('mode', ready.entry.ownerName, `${name} needs ${required.mode}, the call runs under ${mode}`))
}
