/**
 * `dsh inspect --call <callId>`: a past call explained from its session log —
 * each step it passed, the one that decided how it ended (with the plugin and
 * its rule, hook or guard, from `tool/result`'s `error.source`), the steps it
 * never reached, and the log's own evidence per step (permission decisions,
 * hook runs, the approval asked and decided). The execs the rules refused or
 * asked about while the command ran (`permission/decided` with `by: 'exec'`,
 * and the approvals asked for them) are the body's evidence.
 */
import type { SessionEvent } from '@dsh/kernel'
import { describeSource, type ErrorSource } from '@dsh/tools'

export type Step = 'prepare' | 'pre-execute' | 'guards' | 'approval' | 'mode check' | 'body' | 'post-execute'
const STEPS: readonly Step[] = ['prepare', 'pre-execute', 'guards', 'approval', 'mode check', 'body', 'post-execute']

export interface StepReport {
  step: Step
  outcome: 'passed' | 'decided' | 'not reached' | 'skipped'
  /** what the log says about this step: one line per event */
  evidence: string[]
}

export interface CallExplanation {
  callId: string
  name: string
  arguments?: unknown
  parent?: string
  isError: boolean
  code?: string
  message?: string
  source?: ErrorSource
  /** who decided, for a person ("guard noPush of plugin git") */
  decidedBy?: string
  steps: StepReport[]
}

type Data = Record<string, any>

/** The step a failure's source points at (a hook blocks in post-execute; a mode that is not a listener's is the mode check). */
function decidingStep(source: ErrorSource | undefined, code: string | undefined, events: readonly SessionEvent[]): Step | undefined {
  if (!source) return code ? 'body' : undefined
  switch (source.kind) {
    case 'prepare': return 'prepare'
    case 'pre-execute':
    case 'rule': return 'pre-execute'
    case 'hook': return code === 'BLOCKED' ? 'post-execute' : 'pre-execute'
    case 'guard': return 'guards'
    case 'approval': return 'approval'
    case 'mode': return events.some((e) => (e.type as string) === 'permission/decided' && (e.data as Data).decision === 'deny' && (e.data as Data).by !== 'exec') ? 'pre-execute' : 'mode check'
    case 'body':
    case 'sandbox': return code === 'BLOCKED' ? 'post-execute' : 'body'
    case 'post-execute': return 'post-execute'
  }
}

/** The approvals asked about one exec of the command (their ids), not about the call. */
function execApprovals(events: readonly SessionEvent[]): Set<string> {
  return new Set(events.filter((e) => e.type === 'approval/asked' && (e.data as Data).arguments?.exec !== undefined).map((e) => String((e.data as Data).id)))
}

function approvalLine(type: string, data: Data): string {
  if (type === 'approval/asked') return `asked${data.reason ? `: ${data.reason}` : ''}${data.sandboxMode ? ` (to run under ${data.sandboxMode})` : ''}`
  const outcome = data.outcome ?? {}
  return `decided ${outcome.kind}${outcome.grant ? ` (${outcome.grant})` : ''}${outcome.reason ? `: ${outcome.reason}` : ''}${data.by ? ` by ${data.by}` : ''}`
}

function evidenceOf(step: Step, events: readonly SessionEvent[]): string[] {
  const lines: string[] = []
  const forExecs = execApprovals(events)
  // the plugins' event types (permission/decided, hook/result) are not all declared where this is built
  for (const { type, data } of events as unknown as Array<{ type: string; data: Data }>) {
    const approval = type === 'approval/asked' || type === 'approval/decided'
    if (type === 'permission/decided' && data.by === 'exec') {
      if (step === 'body') lines.push(`exec ${data.decision === 'deny' ? 'refused' : 'asked about'}: ${Array.isArray(data.argv) ? data.argv.join(' ') : ''} (${data.program})${data.rule ? ` by rule ${data.rule}${data.source ? ` (${data.source})` : ''}` : ''}`)
    } else if (approval && forExecs.has(String(data.id))) {
      if (step === 'body') lines.push(`exec ${approvalLine(type, data)}`)
    } else if (step === 'pre-execute' && type === 'permission/decided') {
      lines.push(`permission ${data.decision}${data.rule ? ` by rule ${data.rule}${data.source ? ` (${data.source})` : ''}` : ` by mode ${data.mode} (no rule matched)`}`)
    } else if ((step === 'pre-execute' || step === 'post-execute') && type === 'hook/result' && (data.event === 'PreToolUse') === (step === 'pre-execute')) {
      lines.push(`${data.event} hook ${JSON.stringify(data.command)}: ${data.decision}${data.failure ? ` (${data.failure})` : ''}${data.reason ? `: ${data.reason}` : ''}`)
    } else if (step === 'approval' && approval) {
      lines.push(approvalLine(type, data))
    }
  }
  return lines
}

/** The explanation of `callId` from one session's events, or undefined when the log has no such call. */
export function explainCall(events: readonly SessionEvent[], callId: string): CallExplanation | undefined {
  const mine = events.filter((e) => (e.data as Data | undefined)?.callId === callId)
  const call = mine.find((e) => e.type === 'tool/call')
  if (!call) return undefined
  const result = mine.find((e) => e.type === 'tool/result')?.data as Data | undefined
  const data = call.data as Data
  const error = result?.error as { code?: string; message?: string; source?: ErrorSource } | undefined
  const forExecs = execApprovals(mine)
  const asked = mine.some((e) => e.type === 'approval/asked' && !forExecs.has(String((e.data as Data).id)))
  const decided = result?.isError ? decidingStep(error?.source, error?.code, mine) : undefined
  let reached = true
  const steps = STEPS.map((step): StepReport => {
    const evidence = evidenceOf(step, mine)
    if (!reached) return { step, outcome: 'not reached', evidence }
    if (step === decided) {
      reached = false
      return { step, outcome: 'decided', evidence }
    }
    // an approval is asked only when gate 1 or a guard asked
    if (step === 'approval' && !asked) return { step, outcome: 'skipped', evidence }
    return { step, outcome: result ? 'passed' : 'not reached', evidence }
  })
  const explanation: CallExplanation = { callId, name: String(data.name), isError: result?.isError === true, steps }
  if (data.arguments !== undefined) explanation.arguments = data.arguments
  if (typeof data.parent === 'string') explanation.parent = data.parent
  if (error) {
    explanation.code = error.code
    explanation.message = error.message
    if (error.source) {
      explanation.source = error.source
      explanation.decidedBy = describeSource(error.source)
    }
  }
  return explanation
}

/** The explanation as lines for a terminal (text from the log is shown, never sent as escapes). */
export function formatExplanation(e: CallExplanation, session: { id: string; path: string }): string {
  // eslint-disable-next-line no-control-regex
  const clean = (text: string) => text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  const lines = [`call ${clean(e.callId)} ${clean(e.name)} ${e.arguments === undefined ? '' : clean(JSON.stringify(e.arguments))}`.trimEnd()]
  lines.push(`  session ${clean(session.id)} (${clean(session.path)})${e.parent ? `, a sub-call of ${clean(e.parent)}` : ''}`)
  lines.push(e.isError
    ? `  ✗ ${e.code ?? 'ERROR'}${e.decidedBy ? ` — decided by ${clean(e.decidedBy)}` : ''}: ${clean(e.message ?? '')}`
    : '  ✓ ran and succeeded')
  for (const step of e.steps) {
    const mark = step.outcome === 'passed' ? '✓' : step.outcome === 'decided' ? '✗' : '·'
    lines.push(`  ${mark} ${step.step}: ${step.outcome}${step.outcome === 'decided' && e.decidedBy ? ` (${clean(e.decidedBy)})` : ''}`)
    for (const line of step.evidence) lines.push(`      ${clean(line)}`)
  }
  return lines.join('\n')
}
