/** The rate-limited stderr writer: a burst per window, then one count line when the next opens or at flush. */
import { describe, expect, it } from 'vitest'
import { rateLimitedLog } from '../../core/dsh/src/cli/mcp/rate-limited-log.js'

describe('rateLimitedLog', () => {
  it('writes `burst` lines a window, counts the rest, says the count when the next window opens', () => {
    let now = 0
    const out: string[] = []
    const log = rateLimitedLog((l) => out.push(l), { burst: 2, windowMs: 1000, what: 'lines', now: () => now })
    for (let i = 0; i < 5; i++) log(`a${i}`)
    expect(out).toEqual(['a0', 'a1'])
    now = 1000
    log('b0')
    expect(out).toEqual(['a0', 'a1', '… 3 more lines left out', 'b0'])
    log('b1')
    log('b2')
    log.flush()
    log.flush()
    expect(out.slice(4)).toEqual(['b1', '… 1 more lines left out'])
  })
})
