import { describe, expect, it } from 'vitest'
import { cutValue, defaultLimits, describeRequest, PromptQueue, prettyArguments, sanitize } from '@dsh/ui-approval'
import type { ApprovalRequestEvent } from '@dsh/approval'

const limits = { ...defaultLimits, maxValueChars: 10, maxItems: 3, maxDepth: 2, maxLines: 8 }

describe('format', () => {
  it('cuts long strings, long arrays, many keys and deep nesting, each with a visible marker', () => {
    expect(cutValue('abcdefghijklmnop', limits)).toBe('abcdefghij…[cut 6 more chars]')
    expect(cutValue('short', limits)).toBe('short')
    expect(cutValue([1, 2, 3, 4, 5], limits)).toEqual([1, 2, 3, '…[cut 2 more items]'])
    expect(cutValue({ a: 1, b: 2, c: 3, d: 4 }, limits)).toEqual({ a: 1, b: 2, c: 3, '…': '…[cut 1 more keys]' })
    expect(cutValue({ a: { b: { c: 1 } } }, limits)).toEqual({ a: { b: '…[cut 1 more nested values]' } })
    expect(cutValue(null, limits)).toBe(null)
  })

  it('never splits a surrogate pair', () => {
    const cut = cutValue('123456789😀😀', limits) as string
    expect(cut.startsWith('123456789…')).toBe(true)
    // 4 UTF-16 code units left: the dropped high surrogate, its pair and one more emoji
    expect(cut).toBe('123456789…[cut 4 more chars]')
  })

  it('keeps a "__proto__" key as data, shown, not as a prototype', () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}}')
    const cut = cutValue(args, limits) as any
    expect(Object.getPrototypeOf(cut)).toBe(Object.prototype)
    expect(prettyArguments(args, limits)).toContain('"__proto__"')
    expect(({} as any).polluted).toBeUndefined()
  })

  it('cuts the pretty text to maxLines with a marker', () => {
    const text = prettyArguments({ list: [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }, { ...limits, maxDepth: 5 })
    const lines = text.split('\n')
    expect(lines).toHaveLength(9)
    expect(lines.at(-1)).toMatch(/^…\[cut \d+ more lines\]$/)
  })

  it('shows control, C1 and bidi characters as escapes', () => {
    expect(sanitize('a\u001b[2Jb')).toBe('a\\u{001b}[2Jb')
    expect(sanitize('x\u009by')).toBe('x\\u{009b}y')
    expect(sanitize('x\u202ey\u2066z\u200f')).toBe('x\\u{202e}y\\u{2066}z\\u{200f}')
    expect(sanitize('tab\tand\rcr')).toBe('tab\\u{0009}and\\u{000d}cr')
    expect(sanitize('two\nlines')).toBe('two\\nlines')
    expect(sanitize('two\nlines', true)).toBe('two\nlines')
    expect(sanitize('plain ünïcödé 😀')).toBe('plain ünïcödé 😀')
  })

  it('describes tool, mode, reason, parent and arguments', () => {
    const request = {
      exec: { callId: 'c', name: 'bash', arguments: { command: 'ls' }, parent: { callId: 'rc-1' } },
      reason: 'lists\u001b[31m',
      sandboxMode: 'workspace-write',
      signal: new AbortController().signal,
    } as unknown as ApprovalRequestEvent
    const text = describeRequest(request, limits)
    expect(text).toContain('Tool:     bash')
    expect(text).toContain('Sandbox:  workspace-write for this call: allowing lets it write inside the workspace')
    expect(text).toContain('Reason:   lists\\u{001b}[31m')
    expect(text).toContain('From:     run_code call rc-1')
    expect(text).toContain('"command": "ls"')
    const plain = describeRequest({ ...request, reason: undefined, sandboxMode: undefined, exec: { ...request.exec, parent: undefined } } as any, limits)
    expect(plain).toContain("Sandbox:  the session's mode")
    expect(plain).toContain('Reason:   (none given)')
    expect(plain).not.toContain('From:')
  })
})

describe('PromptQueue', () => {
  it('runs one job at a time in arrival order, skips aborted waiters, survives a failing job', async () => {
    const queue = new PromptQueue()
    const trace: string[] = []
    let release!: () => void
    const first = queue.run(new AbortController().signal, () => new Promise<string>((resolve) => {
      trace.push('first start')
      release = () => { trace.push('first end'); resolve('first') }
    }), () => 'skipped')
    const aborted = new AbortController()
    const second = queue.run(aborted.signal, async () => { trace.push('second'); return 'second' }, () => 'skipped')
    const third = queue.run(new AbortController().signal, async () => { trace.push('third'); throw new Error('prompt failed') }, () => 'skipped')
    const fourth = queue.run(new AbortController().signal, async () => { trace.push('fourth'); return 'fourth' }, () => 'skipped')
    await new Promise((resolve) => setImmediate(resolve))
    expect(trace).toEqual(['first start'])
    aborted.abort()
    release()
    expect(await first).toBe('first')
    expect(await second).toBe('skipped')
    await expect(third).rejects.toThrow('prompt failed')
    expect(await fourth).toBe('fourth')
    expect(trace).toEqual(['first start', 'first end', 'third', 'fourth'])
  })
})
