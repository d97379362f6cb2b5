import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { filterSnapshot, formatTree, snapshot } from '@dsh/tool-cordis'
import { createTestKernel, testTool, type TestKernel } from 'dsh/testing'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const ESC = '\x1b'

describe('formatTree', () => {
  it('prints every section as a branch of the tree, plain unless asked for colour', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'shown', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('shown_tool', () => 'ok', { timeoutMs: 50 }))
      ctx.tools.guard(function shownGuard() { return undefined })
      ctx.on('tools/execute', (exec, next) => next(), true)
    } })
    const snap = snapshot(k.ctx)
    const plain = formatTree(snap)
    expect(plain).not.toContain(ESC)
    expect(plain.split('\n')[0]).toBe('dsh registry')
    const titles = [`tools \\(${snap.tools.length}\\) — mode native`, 'listeners', 'guards \\(1\\)', `prompt sections \\(${snap.prompt.length}\\)`, 'sandbox', 'approval', `plugins \\(${snap.plugins.length}\\)`]
    expect(plain.split('\n').filter((line) => /^[├└]─ /.test(line)).map((line) => line.slice(3))).toEqual(titles.map((t) => t.replace(/\\/g, '')))
    expect(plain).toContain('shown_tool [shown] exclusive, timeout 50 ms, wire native/both')
    expect(plain).toMatch(/tools\/execute waterfall\n│ {2}│ {2}└─ 1\. \[shown\] prepend/)
    expect(plain).toContain('1. [shown] shownGuard')
    expect(plain).toContain('bwrap (local) not probed')
    const coloured = formatTree(snap, { colour: true })
    expect(coloured).toContain(ESC)
    // colour changes nothing but the escapes
    expect(coloured.replace(/\x1b\[\d+m/g, '')).toBe(plain)
  })

  it('shows plugins as a tree: a plugin\'s children under it, every guard, listener and tool under its owner, anonymous guards by their place', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'family', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('family_tool'))
      ctx.plugin({ name: 'child', inject: ['tools'], apply: (child: Context) => {
        child.tools.guard(() => undefined)
        child.tools.guard(function lockGuard() { return undefined })
        child.on('tools/pre-execute', function childPolicy(_exec, next) { return next() })
      } })
    } })
    const snap = snapshot(k.ctx)
    expect(snap.plugins.find((p) => p.name === 'child')).toMatchObject({ parent: 'family' })
    expect(snap.plugins.find((p) => p.name === 'family')).toMatchObject({ parent: null })
    expect(snap.guards.filter((g) => g.owner === 'child').map((g) => [g.function, g.name])).toEqual([[null, '#1'], ['lockGuard', 'lockGuard']])
    const lines = formatTree(snap).split('\n')
    const at = lines.findIndex((line) => /─ family (\(host\) )?active/.test(line))
    expect(at, formatTree(snap)).toBeGreaterThan(0)
    const indent = lines[at].indexOf('family')
    // the lines hanging under family, up to its next sibling
    const under: string[] = []
    for (const line of lines.slice(at + 1)) {
      if (line.length <= indent || !/[ │]/.test(line[indent - 3] ?? '') || /^[├└]/.test(line.slice(indent - 3))) break
      under.push(line.slice(indent))
    }
    expect(under).toEqual([
      '├─ tool family_tool',
      expect.stringMatching(/^└─ child (\(host\) )?active/),
      expect.stringMatching(/^ {3}├─ guard #1 \(\d+\. of all guards\)$/),
      expect.stringMatching(/^ {3}├─ guard lockGuard \(\d+\. of all guards\)$/),
      expect.stringMatching(/^ {3}└─ listener tools\/pre-execute #\d+ childPolicy$/),
    ])
  })

  it('prints a filtered snapshot with only its sections', async () => {
    k = await createTestKernel()
    const text = formatTree(filterSnapshot(snapshot(k.ctx), { section: 'approval' }))
    expect(text.split('\n')).toEqual(['dsh registry', '└─ approval', '   ├─ policy ask, preset none, timeout 600000 ms', expect.stringMatching(/^ {3}└─ presets: read-only/)])
  })

  it('never sends control characters from names, descriptions or configs to the terminal', async () => {
    k = await createTestKernel()
    k.ctx.plugin({ name: 'evil\x1b[2J\x07', inject: ['tools', 'systemPrompt'], apply: (ctx: Context) => {
      ctx.tools.register(testTool('evil_tool', () => 'ok', { description: '\x1b]0;title\x07' }))
      ctx.systemPrompt.section({ id: 'evil\x1b[31m', text: 'x' })
    } }, { note: '\x1b[31mred\x9b' })
    const text = formatTree(snapshot(k.ctx))
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    expect(text).toContain('evil_tool [evil\\x1b[2J\\x07]')
    expect(text).toContain('evil\\x1b[31m [evil')
    expect(text).toContain('{"note":"\\u001b[31mred\\x9b"}')
  })
})
