// The Context a plugin gets once dsh is imported: every service and the
// waterfall, merged into cordis's Context by declaration merging.
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import type { ApprovalService, PromptSection, SandboxService, SessionService, SystemPromptService, ToolResult, ToolService, PreToolDecision, Execution } from 'dsh'

declare const ctx: Context

describe('the merged Context', () => {
  it('has every dsh service under its name', () => {
    expectTypeOf(ctx.tools).toEqualTypeOf<ToolService>()
    expectTypeOf(ctx.sessions).toEqualTypeOf<SessionService>()
    expectTypeOf(ctx.systemPrompt).toEqualTypeOf<SystemPromptService>()
    expectTypeOf(ctx.approval).toEqualTypeOf<ApprovalService>()
    expectTypeOf(ctx.sandbox).toEqualTypeOf<SandboxService>()
    // @ts-expect-error: no such service
    ctx.toolz
  })

  it('registers tools and guards, returning disposers', () => {
    expectTypeOf(ctx.tools.register).returns.toEqualTypeOf<() => void>()
    expectTypeOf(ctx.tools.guard).parameter(0).toBeFunction()
    expectTypeOf(ctx.tools.guard).parameter(0).parameter(0).toEqualTypeOf<Execution>()
    ctx.tools.guard((exec) => (exec.name === 'bash' ? 'no' : undefined))
    // @ts-expect-error: a guard returns a reason string, not a decision
    ctx.tools.guard(() => ({ kind: 'deny', reason: 'no' }))
    expectTypeOf(ctx.tools.execute).returns.resolves.toEqualTypeOf<ToolResult>()
  })

  it('types ctx.waterfall by the event: input, fallback and output', () => {
    expectTypeOf(ctx.waterfall('tools/pre-execute', {} as Execution, () => ({ kind: 'allow' }))).resolves.toEqualTypeOf<PreToolDecision>()
    expectTypeOf(ctx.waterfall('system-prompt/assemble', [], (sections) => sections)).resolves.toEqualTypeOf<readonly PromptSection[]>()
    // @ts-expect-error: tools/result is observe-only, not a waterfall
    ctx.waterfall('tools/result', {} as Execution, () => undefined)
    // @ts-expect-error: the fallback must produce the event's output
    ctx.waterfall('tools/pre-execute', {} as Execution, () => 'allow')
  })
})
