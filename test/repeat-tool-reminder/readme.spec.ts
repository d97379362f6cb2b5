import { afterEach, expect, it } from 'vitest'
import { testTool } from 'dsh/testing'
import { kernelFromReadme } from '../timeout-policy/readme-config.js'

let done: (() => Promise<void>) | undefined
afterEach(async () => { await done?.(); done = undefined })

it('the README\'s dsh.yml example loads and its thresholds apply', async () => {
  const { k, example, done: cleanup } = await kernelFromReadme('repeat-tool-reminder')
  done = cleanup
  expect(k.plugins().map((p) => [p.spec, p.config])).toEqual([['repeat-tool-reminder', example]])
  k.ctx.plugin({ name: 'fixture-tools', inject: ['tools'], apply: (ctx) => { ctx.tools.register(testTool('look')) } })
  const flagged: number[] = []
  for (let i = 1; i <= 10; i++) if ((await k.call('look')).content.length > 1) flagged.push(i)
  expect(flagged).toEqual((example as { thresholds: number[] }).thresholds)
})
