// web_fetch's converter threads: pages converted at once each get a thread,
// an abort ends a conversion (and its thread) with the signal's reason and the
// next page still converts, a failure inside the converter is an error, and
// closing ends what runs and refuses what comes after.
import { afterEach, describe, expect, it } from 'vitest'
// web_fetch's converter is private to @dsh/workspace-tools: tested here on purpose
import { MarkdownConverter } from '../../plugins/workspace-tools/src/web/markdown.js'

const converters: MarkdownConverter[] = []
afterEach(() => {
  for (const c of converters.splice(0)) c.close()
})

function converter(): MarkdownConverter {
  const c = new MarkdownConverter()
  converters.push(c)
  return c
}

const never = () => new AbortController().signal
// long enough for turndown to take seconds: the conversion is still running when the test acts
const HEAVY = `<html><body>${'<div><ul><li><table><tr><td><b>x</b></td></tr></table></li></ul></div>\n'.repeat(30_000)}</body></html>`

describe('the HTML converter', () => {
  it('converts pages one after another and at the same time', async () => {
    const c = converter()
    expect(await c.convert('<h1>One</h1>', never())).toBe('# One')
    expect(await c.convert('<p>two <em>2</em></p>', never())).toBe('two _2_')
    const both = await Promise.all([c.convert('<h2>a</h2>', never()), c.convert('<ul><li>b</li></ul>', never())])
    expect(both).toEqual(['## a', '-   b'])
  })

  it('an abort ends the conversion with the signal\'s reason at once, and the next page still converts', async () => {
    const c = converter()
    const controller = new AbortController()
    const running = c.convert(HEAVY, controller.signal)
    setTimeout(() => controller.abort(new Error('deadline')), 200)
    const started = Date.now()
    await expect(running).rejects.toThrow('deadline')
    expect(Date.now() - started).toBeLessThan(2000)
    expect(await c.convert('<b>after</b>', never())).toBe('**after**')
    const already = new AbortController()
    already.abort(new Error('too late'))
    await expect(c.convert('<p>x</p>', already.signal)).rejects.toThrow('too late')
  })

  it('close ends a conversion in flight and refuses the next', async () => {
    const c = converter()
    await c.convert('<p>warm</p>', never())
    const running = c.convert(HEAVY, never())
    setTimeout(() => c.close(), 200)
    await expect(running).rejects.toThrow(/the HTML converter exited/)
    await expect(c.convert('<p>x</p>', never())).rejects.toThrow(/closed/)
  })
})
