// The README's example is this directory's readme-example.ts, word for word, and it runs:
// a scripted model reads a file and tries a write the read-only sandbox refuses.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { runAgent } from './readme-example.js'
import { scriptedModel, toolResultsSent } from './mock-model.js'

const readme = readFileSync(new URL('../../adapters/ai-sdk/README.md', import.meta.url), 'utf8')
const example = readFileSync(new URL('./readme-example.ts', import.meta.url), 'utf8')
let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

it('the README shows readme-example.ts exactly', () => {
  expect(/```ts\n([\s\S]*?)```/.exec(readme)?.[1]).toBe(example)
})

it('the example runs: the model reads through the pipeline, its write is refused, the log holds both', async () => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-ai-sdk-'))
  writeFileSync(join(dir, 'notes.txt'), 'remember the milk\n')
  const model = scriptedModel([
    [{ call: 'r1', name: 'read', input: { file_path: join(dir, 'notes.txt') } }],
    [{ call: 'w1', name: 'write', input: { file_path: join(dir, 'out.txt'), content: 'x' } }],
    [{ text: 'finished' }],
  ])
  const { text, log } = await runAgent(model, 'read my notes', dir)
  expect(text).toBe('finished')
  expect(JSON.stringify(toolResultsSent(model, 1).r1)).toContain('remember the milk')
  expect(toolResultsSent(model, 2).w1).toMatchObject({ type: 'error-text' })
  expect(existsSync(join(dir, 'out.txt'))).toBe(false)
  const events = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
  expect(events.filter((e) => e.type === 'tool/result').map((e) => [e.data.callId, e.data.isError])).toEqual([['r1', false], ['w1', true]])
})
