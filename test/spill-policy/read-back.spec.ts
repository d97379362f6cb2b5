import { afterEach, expect, it } from 'vitest'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ContentBlock } from '@dsh/tools'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { echoTool, parseSpill, registerTools } from './helpers.js'

let k: TestKernel | undefined
let ws: string | undefined
afterEach(async () => {
  await k?.cleanup()
  if (ws) rmSync(ws, { recursive: true, force: true })
  k = undefined
  ws = undefined
})

it('the real read tool opens the spill file the reference names, by offset and limit, and its own output is not spilled', async () => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-spill-ws-')))
  k = await createTestKernel({
    sandbox: { workspace: ws },
    plugins: { 'workspace-tools': {}, 'spill-policy': { maxInlineBytes: 2048 } },
  })
  const holder: { output: string | ContentBlock[] } = { output: '' }
  registerTools(k, echoTool('emit', holder))
  const lines = Array.from({ length: 3000 }, (_, i) => `row ${i + 1} ${'中'.repeat(i % 7)}`)
  holder.output = lines.join('\n')
  const spill = parseSpill(await k.call('emit'))

  const window = await k.call('read', { file_path: spill.path, offset: 1500, limit: 3 })
  expect(window.isError, window.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toBe(false)
  expect((window.value as any).content).toBe(lines.slice(1499, 1502).join('\n'))

  // read's output (over 2 KiB here) stays whole: read is exempt
  const whole = await k.call('read', { file_path: spill.path, limit: 2000 })
  expect(whole.isError).toBe(false)
  expect(whole.content).toHaveLength(1)
  expect(Buffer.byteLength((whole.content[0] as { text: string }).text)).toBeGreaterThan(2048)
})
