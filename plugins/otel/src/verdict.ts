/**
 * Whether a call was let through its gates, who decided, and the plugin that
 * did, from what the plugin saw: gate 1's answer (as its outermost listener
 * received it), the approval, and the result (whose `error.source` names the
 * step and plugin that decided a failure).
 */
import type { ErrorSource, ToolResult } from '@dsh/tools'
import type { ApprovalFacts } from './approval-facts.js'

/** Gate 1's answer: a decision kind, or `failed` (a listener threw: a denial). */
export type GateAnswer = 'allow' | 'deny' | 'ask' | 'failed'

export interface Verdict {
  decision: 'allow' | 'deny'
  /**
   * `pre-execute`: gate 1 (a listener, or nobody objecting); `approval`: an ask (gate 1's or a
   * guard's) and the approval decided; `guard`: gate 2 denied; `mode`: the tool needs a sandbox
   * mode above the call's
   */
  by: 'pre-execute' | 'approval' | 'guard' | 'mode'
  /** the plugin that decided a denial (its cordis name), when the result names one */
  plugin?: string
}

function denied(by: Verdict['by'], source: ErrorSource): Verdict {
  return source.plugin !== undefined ? { decision: 'deny', by, plugin: source.plugin } : { decision: 'deny', by }
}

/** Undefined when the call never reached gate 1 (refused in prepare: unknown tool, invalid arguments …). */
export function verdictOf(gate: GateAnswer | undefined, approval: ApprovalFacts | undefined, result: ToolResult): Verdict | undefined {
  if (gate === undefined) return undefined
  const source = result.error?.source
  if (source) {
    switch (source.kind) {
      case 'pre-execute':
      case 'rule':
      case 'hook':
        return denied('pre-execute', source)
      case 'mode':
        // a listener's mode default (a permission mode) is gate 1's; the tool's required mode is the check after the guards
        return denied(gate === 'deny' || gate === 'failed' ? 'pre-execute' : 'mode', source)
      case 'approval':
        return denied('approval', source)
      case 'guard':
        return denied('guard', source)
    }
    // failed later (the body, post-execute …): the gates let it through
    return { decision: 'allow', by: approval?.outcome === 'approved' ? 'approval' : 'pre-execute' }
  }
  if (gate === 'deny' || gate === 'failed') return { decision: 'deny', by: 'pre-execute' }
  const code = result.error?.code
  if (gate === 'ask') {
    if (approval?.outcome !== 'approved') return { decision: 'deny', by: 'approval' }
    return code === 'DENIED' ? { decision: 'deny', by: 'guard' } : { decision: 'allow', by: 'approval' }
  }
  if (code === 'DENIED') return { decision: 'deny', by: 'guard' }
  // gate 1 allowed; a guard's ask, approved, let it on
  return { decision: 'allow', by: approval?.outcome === 'approved' ? 'approval' : 'pre-execute' }
}
