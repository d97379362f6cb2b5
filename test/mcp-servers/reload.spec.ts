// A reload that adds, removes or changes one server touches only that one:
// the others keep their processes, and a call running on one of them during
// the reload finishes with its result.
import { describe, expect, it } from 'vitest'
import type { TestKernel } from 'dsh/testing'
import { eventually, FIXTURE, kernelWith, processesWith, text, toolNames } from './helpers.js'

let k: TestKernel | undefined

/** a fixture server whose processes can be told apart by a marker in their argv */
const marked = (marker: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FIXTURE, marker], ...extra })

function reloadWith(k: TestKernel, servers: Record<string, unknown>) {
  return k.reload({ ...k.options, plugins: { 'mcp-servers': { servers, restartBackoffMs: 50 } } } as any)
}

describe('mcp-servers: reload', () => {
  it('adding and removing a server while a call runs on another: the call finishes, the other keeps its process', async () => {
    const a = `--mark-a-${process.pid}-${Date.now()}`
    const b = `--mark-b-${process.pid}-${Date.now()}`
    const c = `--mark-c-${process.pid}-${Date.now()}`
    k = await kernelWith({ servers: { a: marked(a), b: marked(b) } })
    const bPids = processesWith(b)
    expect(bPids.length).toBeGreaterThan(0)
    // the reload starts once the call's body runs, not after a guess at how long that takes
    const inBody = new Promise<void>((resolve) => k!.ctx.on('tools/execute', (exec, next) => {
      if (exec.name === 'mcp__b__sleep') resolve()
      return next()
    }))
    const running = k.call('mcp__b__sleep', { ms: 1500 })
    await inBody
    await reloadWith(k, { b: marked(b), c: marked(c) })
    const r = await running
    expect(r.isError, text(r)).toBe(false)
    expect(text(r)).toBe('slept 1500')
    expect(processesWith(b)).toEqual(bPids)
    expect(await eventually(() => processesWith(a).length === 0)).toBe(true)
    expect(toolNames(k)).toContain('mcp__c__echo')
    expect(toolNames(k).some((n) => n.startsWith('mcp__a__'))).toBe(false)
    expect(text(await k.call('mcp__b__echo', { text: 'b' }))).toBe('b')
    expect(text(await k.call('mcp__c__echo', { text: 'c' }))).toBe('c')
  })

  it('changing one server restarts that one alone', async () => {
    const a = `--mark-a2-${process.pid}-${Date.now()}`
    const b = `--mark-b2-${process.pid}-${Date.now()}`
    k = await kernelWith({ servers: { a: marked(a), b: marked(b) } })
    const aPids = processesWith(a)
    const bPids = processesWith(b)
    await reloadWith(k, { a: marked(a), b: marked(b, { env: { CHANGED: '1' } }) })
    expect(await eventually(() => processesWith(b).length > 0 && processesWith(b).every((pid) => !bPids.includes(pid)))).toBe(true)
    expect(processesWith(a)).toEqual(aPids)
    expect(JSON.parse(text(await k.call('mcp__b__env', {}))).CHANGED).toBe('1')
  })
})
