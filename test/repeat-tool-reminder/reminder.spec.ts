import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { Session } from '@dsh/kernel'
import type { ToolDefinition, ToolResult } from '@dsh/tools'
import * as Reminder from '@dsh/repeat-tool-reminder'
import { reminderText } from '@dsh/repeat-tool-reminder'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel
afterEach(() => k.cleanup())

function registerTools(...defs: ToolDefinition[]) {
  return k.ctx.plugin({ name: 'fixture-tools', inject: ['tools'], apply: (ctx: Context) => { for (const d of defs) ctx.tools.register(d) } })
}

const reminders = (result: ToolResult) =>
  result.content.filter((b) => b.type === 'text' && b.text.startsWith('[repeat-tool-reminder]'))

async function runs(calls: Array<[string, unknown, Session?]>): Promise<ToolResult[]> {
  const out: ToolResult[] = []
  for (const [name, args, session] of calls) out.push(await k.call(name, args, session ? { session } : {}))
  return out
}

describe('with the default thresholds', () => {
  beforeEach(async () => {
    k = await createTestKernel({ plugins: { 'repeat-tool-reminder': {} } })
    registerTools(testTool('look', (args: any) => `saw ${JSON.stringify(args)}`), testTool('other', () => 'other'))
  })

  it('appends a reminder at the 3rd, 5th and 8th identical call in a row, and only then', async () => {
    const results = await runs(Array.from({ length: 9 }, () => ['look', { path: 'a' }] as [string, unknown]))
    const flagged = results.map((r, i) => (reminders(r).length ? i + 1 : 0)).filter(Boolean)
    expect(flagged).toEqual([3, 5, 8])
    const third = results[2]
    expect(third.isError).toBe(false)
    expect(third.content).toEqual([
      { type: 'text', text: 'saw {"path":"a"}' },
      { type: 'text', text: reminderText('look', 3) },
    ])
    expect(reminderText('look', 3)).toMatch(/call 3 in a row of the tool "look" with the same arguments/)
    // the audited result is the annotated one
    const logged = k.session.events().filter((e) => e.type === 'tool/result').map((e) => (e.data as any).content.length)
    expect(logged).toEqual([1, 1, 2, 1, 2, 1, 1, 2, 1])
  })

  it('counts canonically equal arguments as equal (key order does not matter)', async () => {
    const results = await runs([
      ['look', { a: 1, b: { c: 2, d: [1, 2] } }],
      ['look', { b: { d: [1, 2], c: 2 }, a: 1 }],
      ['look', { b: { c: 2, d: [1, 2] }, a: 1 }],
    ])
    expect(reminders(results[2])).toHaveLength(1)
  })

  it('twin: different arguments, or another tool in between, start a new run', async () => {
    const results = await runs([
      ['look', { path: 'a' }], ['look', { path: 'a' }], ['look', { path: 'b' }],
      ['look', { path: 'a' }], ['look', { path: 'a' }], ['other', { path: 'a' }],
      ['look', { path: 'a' }], ['look', { path: 'a' }], ['look', { path: 'a', x: null }],
      ['look', { d: [1, 2] }], ['look', { d: [2, 1] }], ['look', { d: [1, 2] }],
    ])
    expect(results.flatMap(reminders)).toEqual([])
  })

  it('keeps runs per session: session A\'s repeats do not count in B, and B\'s calls do not break A\'s run', async () => {
    const a = k.session
    const b = k.openSession({ id: 'other-session' })
    const results = await runs([
      ['look', { q: 1 }, a], ['look', { q: 1 }, a],
      ['look', { q: 1 }, b],
      ['look', { q: 1 }, a],
      ['look', { q: 1 }, b],
    ])
    expect(results.map((r) => reminders(r).length)).toEqual([0, 0, 0, 1, 0])
    b.close()
  })

  it('long arguments are compared whole, not by a prefix', async () => {
    const big = 'x'.repeat(10_000)
    const results = await runs([
      ['look', { text: big }], ['look', { text: big }], ['look', { text: `${big}y` }],
      ['look', { text: `${big}y` }], ['look', { text: `${big}y` }],
    ])
    expect(results.map((r) => reminders(r).length)).toEqual([0, 0, 0, 0, 1])
  })
})

describe('advisory only', () => {
  it('a reminder on an error result keeps it an error with its code and message; only content grows', async () => {
    k = await createTestKernel({ plugins: { 'repeat-tool-reminder': { thresholds: [2] } } })
    registerTools(testTool('fail', () => { throw new Error('disk on fire') }))
    const [first, second] = await runs([['fail', {}], ['fail', {}]])
    expect(second.isError).toBe(true)
    expect(second.error).toEqual(first.error)
    expect(second.error?.code).toBe('TOOL_FAILED')
    expect(second.content).toEqual([...first.content, { type: 'text', text: reminderText('fail', 2) }])
  })

  it('never blocks and lets another listener\'s block through unchanged', async () => {
    k = await createTestKernel({ plugins: { 'repeat-tool-reminder': { thresholds: [2] } } })
    registerTools(testTool('look'))
    k.ctx.plugin({ name: 'blocker', apply: (ctx: Context) => {
      ctx.on('tools/post-execute', (input) => (input.exec.arguments.block ? { kind: 'block', feedback: 'no peeking' } : input.result))
    } })
    const [, ok, , blocked] = await runs([['look', {}], ['look', {}], ['look', { block: true }], ['look', { block: true }]])
    expect(ok.isError).toBe(false)
    expect(reminders(ok)).toHaveLength(1)
    expect(blocked.error).toMatchObject({ code: 'BLOCKED', message: 'no peeking' })
    expect(reminders(blocked)).toHaveLength(0)
  })

  it('appends after other post-execute listeners, even ones loaded before it', async () => {
    k = await createTestKernel()
    registerTools(testTool('look', () => 'original'))
    // loaded first, so without the reminder's prepend it would be the outer listener and drop the reminder
    k.ctx.plugin({ name: 'rewriter', apply: (ctx: Context) => {
      ctx.on('tools/post-execute', async (_input, next) => {
        const out = await next()
        return 'kind' in out ? out : { ...out, content: [{ type: 'text', text: 'rewritten' }] }
      })
    } })
    k.ctx.plugin(Reminder, { thresholds: [2] })
    const [, second] = await runs([['look', {}], ['look', {}]])
    expect(second.content).toEqual([{ type: 'text', text: 'rewritten' }, { type: 'text', text: reminderText('look', 2) }])
  })
})

describe('nested code-mode calls', () => {
  it('are not counted and do not break the model\'s run', async () => {
    k = await createTestKernel({ plugins: { 'repeat-tool-reminder': {} } })
    registerTools(testTool('look'), testTool('other'))
    const parent = k.ctx.tools.issueParentToken('run-1')
    const nested = (name: string) => k.call(name, { q: 1 }, { parent })
    const direct = () => k.call('look', { q: 1 })
    const seen: number[] = []
    for (const step of [direct, direct, () => nested('other'), () => nested('look'), () => nested('look'), () => nested('look'), direct]) {
      seen.push(reminders(await step()).length)
    }
    // nested calls never get one, and the 3rd direct call (7th step) does
    expect(seen).toEqual([0, 0, 0, 0, 0, 0, 1])
  })
})
