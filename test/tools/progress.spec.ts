/**
 * `ToolCall.progress`: a body's reports reach the host's `onProgress`; with
 * no listener they go nowhere; a throwing listener cannot break the body.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'
import type { ProgressReport } from '@dsh/tools'

let k: TestKernel
beforeEach(async () => { k = await createTestKernel() })
afterEach(() => k.cleanup())

function register(def: ReturnType<typeof testTool>) {
  k.ctx.plugin({ name: 'p', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(def) } })
}

describe('ToolCall.progress', () => {
  it('passes each report to the host, functions unread', async () => {
    let count = 0
    register(testTool('long', (_args, call) => {
      call.progress('starting')
      call.progress(() => `${count} done`)
      count = 3
      return 'ok'
    }))
    const reports: ProgressReport[] = []
    const result = await k.call('long', {}, { onProgress: (report) => reports.push(report) })
    expect(result.isError).toBe(false)
    expect(reports[0]).toBe('starting')
    expect(typeof reports[1]).toBe('function')
    expect((reports[1] as () => string)()).toBe('3 done')
  })

  it('without a listener a report is a no-op', async () => {
    register(testTool('long', (_args, call) => { call.progress('x'); return 'ok' }))
    expect((await k.call('long')).isError).toBe(false)
  })

  it('a throwing listener does not reach the body', async () => {
    register(testTool('long', (_args, call) => { call.progress('x'); return 'still ran' }))
    const result = await k.call('long', {}, { onProgress: () => { throw new Error('host bug') } })
    expect(result.content).toEqual([{ type: 'text', text: 'still ran' }])
  })
})
