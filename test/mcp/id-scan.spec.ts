/**
 * The oversized-message id scanner against `JSON.parse`: the same top-level
 * id for messages cut into chunks at every byte, ids at the start, the end
 * and after nested objects, escaped quotes and "id" keys in nested values;
 * `null` where the id is not a plain number or string.
 */
import { describe, expect, it } from 'vitest'
// the scanner is private to the transport: tested here on purpose
import { IdScanner } from '../../adapters/mcp/src/id-scan.js'

function scan(text: string, cuts: number[] = []): string | number | null {
  const bytes = Buffer.from(text)
  const scanner = new IdScanner()
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    scanner.feed(bytes.subarray(at, cut))
    at = cut
  }
  return scanner.id()
}

const messages = [
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"id":99}}}',
  '{"method":"tools/call","params":{"arguments":{"id":98,"s":"a\\"id\\":5"}},"jsonrpc":"2.0","id":"last"}',
  '{ "id" : -12 , "method":"m"}',
  '{"params":{"id":{"id":3}},"id":"ü-\\u00e9","x":[{"id":1},"id"]}',
  '{"a":"\\\\","id":42}',
  '{"id":1,"id":2}',
  '{"params":[1,2,{"id":4}],"id":0}',
]

describe('IdScanner', () => {
  it('finds the top-level id JSON.parse finds, however the bytes are cut', () => {
    for (const message of messages) {
      const expected = JSON.parse(message).id
      const n = Buffer.byteLength(message)
      expect(scan(message), message).toEqual(expected)
      for (let cut = 1; cut < n; cut++) expect(scan(message, [cut]), `${message} cut at ${cut}`).toEqual(expected)
      // one byte at a time
      expect(scan(message, Array.from({ length: n - 1 }, (_, i) => i + 1)), message).toEqual(expected)
    }
  })

  it('null for an id that is not a number or a string, an escaped key, none at all, or one too long', () => {
    expect(scan('{"id":{"n":1},"method":"m"}')).toBeNull()
    expect(scan('{"id":null}')).toBeNull()
    expect(scan('{"id":[1]}')).toBeNull()
    expect(scan('{"\\u0069d":5}')).toBeNull()
    expect(scan('{"method":"m","params":{"id":5}}')).toBeNull()
    expect(scan(`{"id":"${'x'.repeat(1000)}"}`)).toBeNull()
    expect(scan('[{"id":1}]')).toBeNull()
  })

  it('a 16 MB string argument is skipped in a few milliseconds', () => {
    const big = `{"method":"tools/call","params":{"arguments":{"content":"${'q'.repeat(16 * 1024 * 1024)}"}},"jsonrpc":"2.0","id":31}`
    const t = performance.now()
    expect(scan(big, [1 << 16, 1 << 20, 5 << 20])).toBe(31)
    expect(performance.now() - t).toBeLessThan(2000)
  })
})
