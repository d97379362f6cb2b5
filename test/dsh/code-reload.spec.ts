/**
 * Plugin code reload under `kernel.reload()`, in child processes on the
 * built packages (Node's own module loader, where the reload hook runs; the
 * test runner's loader would stand in for it here): 100 code changes of a
 * plugin loaded from a path each replace it, leave no listener, guard, tool,
 * prompt section or registry entry behind, and grow the heap by less than
 * 10 MB (with `--expose-gc`, after a warm-up); a change that does not parse
 * or whose apply throws keeps the old code. `dsh mcp --watch` is in
 * test/e2e/mcp-watch.spec.ts.
 */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { assertBuilt } from '../e2e/mcp-helpers.js'

const FIXTURES = join(import.meta.dirname, '../fixtures/code-reload')
const spec = './plugin/index.mjs'

beforeAll(assertBuilt)

function child(script: string, ...args: string[]): any {
  const out = execFileSync(process.execPath, ['--expose-gc', join(FIXTURES, script), ...args], { encoding: 'utf8', timeout: 240_000, maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').at(-1)!)
}

it('100 code changes: each imported afresh (its helper too) and the old instance gone — no listener, guard, tool, section or registry entry left, heap growth < 10 MB', () => {
  const run = child('leak-child.mjs', '100')
  expect(run.first.answer).toBe('v0 131072')
  expect(run.first.owned).toMatchObject({ tools: 1, guards: 1, listeners: 1, sections: 1 })
  expect(run.unchanged).toEqual({ added: [], removed: [], changed: [], unchanged: [spec] })
  expect(run.wrong).toEqual([])
  expect(run.last).toEqual(run.first.owned)
  expect(run.heapGrowthBytes).toBeLessThan(10 * 1024 * 1024)
}, 300_000)

it('a change that does not parse, or whose apply throws, is refused and the old code keeps answering; the fix loads', () => {
  const run = child('failure-child.mjs')
  expect(run.start).toBe('one')
  expect(run.syntax.reload).toMatchObject({ code: 'PLUGIN_FAILED', message: expect.stringContaining('plugin ./plugin/index.mjs cannot be loaded') })
  expect(run.syntax.answer).toBe('one')
  expect(run.throws.reload).toMatchObject({ code: 'PLUGIN_FAILED', message: expect.stringContaining('apply broke') })
  expect(run.throws.answer).toBe('one')
  expect(run.fixed.reload.summary).toEqual({ added: [], removed: [], changed: [spec], unchanged: [] })
  expect(run.fixed.answer).toBe('four')
}, 300_000)
