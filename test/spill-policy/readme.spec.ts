import { afterEach, expect, it } from 'vitest'
import { testTool } from 'dsh/testing'
import { kernelFromReadme } from '../timeout-policy/readme-config.js'
import { parseSpill } from './helpers.js'

let done: (() => Promise<void>) | undefined
afterEach(async () => { await done?.(); done = undefined })

it('the README\'s dsh.yml example loads and its limit applies', async () => {
  const { k, example, done: cleanup } = await kernelFromReadme('spill-policy')
  done = cleanup
  expect(k.plugins().map((p) => [p.spec, p.config])).toEqual([['spill-policy', example]])
  const max = (example as { maxInlineBytes: number }).maxInlineBytes
  k.ctx.plugin({ name: 'fixture-tools', inject: ['tools'], apply: (ctx) => {
    ctx.tools.register(testTool('fits', () => 'x'.repeat(max)))
    ctx.tools.register(testTool('over', () => 'x'.repeat(max + 1)))
  } })
  expect((await k.call('fits')).content).toHaveLength(1)
  const spill = parseSpill(await k.call('over'))
  expect(spill.inline).toBeLessThanOrEqual(max)
})
