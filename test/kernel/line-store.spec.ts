// The session's off-heap line store: lines dropped in place, their buffers reused.
import { describe, expect, it } from 'vitest'
// the line store is private to @dsh/kernel's sessions: tested here on purpose
import { LARGE_LINE_BYTES, LineStore } from '../../core/kernel/src/sessions/line-store.js'

/** a line of about `kb` KiB, naming its id (multi-byte characters included) */
const line = (id: number, kb = 100) => `{"seq":${id},"pad":"${'é'.repeat(kb * 512)}"}\n`
/** the bytes of every buffer the store holds, in use or spare */
const buffers = (store: LineStore) => [...new Set<Buffer>([...(store as any).chunks, ...(store as any).spare])].reduce((n, b) => n + b.length, 0)
const MB = 2 ** 20

describe('LineStore', () => {
  it('drops the lines below an id in place; the others, across buffers and gaps, read back whole', () => {
    const store = new LineStore(1)
    // every third id has no line (a durable event's, say)
    for (let id = 1; id <= 60; id++) if (id % 3 !== 0) store.add(id, line(id))
    store.dropBelow(31)
    for (let id = 1; id <= 60; id++) {
      if (id < 31 || id % 3 === 0) expect(() => store.text(id)).toThrow(RangeError)
      else expect(store.text(id)).toBe(line(id))
    }
    expect(() => store.add(30, line(30))).toThrow(/ids only grow/)
    store.add(61, 'short\n')
    expect(store.text(61)).toBe('short\n')
    expect(store.text(59)).toBe(line(59))
  })

  it('reuses the buffers of dropped lines: a window kept at the same size allocates none after its first rounds', () => {
    const store = new LineStore(0)
    let id = 0
    const counts: number[] = []
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 20; i++, id++) store.add(id, line(id))
      // keep the newest 20 lines (about 2 MB): the window of a long session
      store.dropBelow(id - 20)
      counts.push(buffers(store))
    }
    for (let i = id - 20; i < id; i++) expect(store.text(i)).toBe(line(i))
    expect(Math.max(...counts.slice(3))).toBeLessThanOrEqual(counts[2] + MB)
    // the 2 MB of lines held, the room left in the newest buffer and at most 2 MB of spares
    expect(Math.max(...counts)).toBeLessThanOrEqual(5 * MB)
  })

  it('clear() lets every line go and ids go on; dropping past the newest id moves the base there', () => {
    const store = new LineStore(5)
    store.add(5, 'a\n')
    store.add(6, 'b\n')
    store.clear()
    expect(() => store.text(6)).toThrow(RangeError)
    store.add(7, 'c\n')
    expect(store.text(7)).toBe('c\n')
    store.dropBelow(100)
    expect(() => store.add(99, 'd\n')).toThrow(/ids only grow/)
    store.add(100, 'e\n')
    expect(store.text(100)).toBe('e\n')
  })

  it('keeps a line over LARGE_LINE_BYTES as its string, apart from the buffers; release lets it go wherever it is, and the short lines around it stay', () => {
    const store = new LineStore(1)
    // short, large, short, large, short: the short ones share one buffer
    const large = (id: number) => line(id, 300)
    for (let id = 1; id <= 5; id++) expect(store.add(id, id % 2 ? line(id, 1) : large(id))).toBe(Buffer.byteLength(id % 2 ? line(id, 1) : large(id)))
    expect(Buffer.byteLength(large(2))).toBeGreaterThan(LARGE_LINE_BYTES)
    // no buffer of its own for either large line: one chunk for the three short ones
    expect((store as any).chunks).toHaveLength(1)
    expect(store.text(2)).toBe(large(2))
    store.release(2)
    store.release(3) // a short line: not let go out of turn
    expect(() => store.text(2)).toThrow(RangeError)
    expect((store as any).large.size).toBe(1)
    for (const id of [1, 3, 4, 5]) expect(store.text(id)).toBe(id % 2 ? line(id, 1) : large(id))
    store.dropBelow(5)
    expect((store as any).large.size).toBe(0)
    expect(store.text(5)).toBe(line(5, 1))
  })
})
