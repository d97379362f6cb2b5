/**
 * Whether a call was let through its gates, and who decided, from what the
 * plugin saw: gate 1's answer (as its outermost listener received it), the
 * approval, and the result.
 */
import type { ToolResult } from '@dsh/tools'
import type { ApprovalFacts } from './approval-facts.js'

/** Gate 1's answer: a decision kind, or `failed` (a listener threw: a denial). */
export type GateAnswer = 'allow' | 'deny' | 'ask' | 'failed'

export interface Verdict {
  decision: 'allow' | 'deny'
  /** `pre-execute`: gate 1 (a listener, or nobody objecting); `approval`: gate 1 asked and the approval decided; `guard`: gate 2 denied */
  by: 'pre-execute' | 'approval' | 'guard'
}

/** Undefined when the call never reached gate 1 (refused in prepare: unknown tool, invalid arguments …). */
export function verdictOf(gate: GateAnswer | undefined, approval: ApprovalFacts | undefined, result: ToolResult): Verdict | undefined {
  if (gate === undefined) return undefined
  if (gate === 'deny' || gate === 'failed') return { decision: 'deny', by: 'pre-execute' }
  const code = result.error?.code
  if (gate === 'ask') {
    if (approval?.outcome !== 'approved') return { decision: 'deny', by: 'approval' }
    // approved, then refused: only gate 2 refuses after an approval
    return code === 'DENIED' ? { decision: 'deny', by: 'guard' } : { decision: 'allow', by: 'approval' }
  }
  // gate 1 allowed: a denial after it is a guard's
  return code === 'DENIED' ? { decision: 'deny', by: 'guard' } : { decision: 'allow', by: 'pre-execute' }
}
