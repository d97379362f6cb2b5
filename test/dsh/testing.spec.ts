import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { answerApprovals, createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => { await k?.cleanup(); k = undefined })

describe('dsh/testing', () => {
  it('uses the temporary directory as the sandbox workspace', async () => {
    k = await createTestKernel()
    expect(k.ctx.sandbox.defaults.workspace).toBe(k.dir)
  })

  it('answers approvals with a fixed outcome or a function, until disposed', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'asks', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('t', () => 'ran'))
      ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'test' }))
    } })
    const stop = answerApprovals(k, { kind: 'approved', grant: 'once' })
    expect((await k.call('t')).content).toEqual([{ type: 'text', text: 'ran' }])
    stop()
    const stop2 = answerApprovals(k, (request) => ({ kind: 'denied', reason: `no ${request.exec.name}` }))
    expect((await k.call('t')).error).toMatchObject({ code: 'DENIED', message: 'approval denied: no t' })
    stop2()
    expect((await k.call('t')).error?.code).toBe('APPROVAL_UNAVAILABLE')
  })
})
