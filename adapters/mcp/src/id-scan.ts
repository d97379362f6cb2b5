/**
 * The top-level `"id"` of a JSON object read in pieces, without keeping the
 * pieces: for a message too large to buffer, so that its refusal can still go
 * to the request it answers. One pass over the bytes, constant memory; the
 * insides of strings are skipped with `indexOf`, so a huge string argument
 * (the usual reason a message is too large) costs almost nothing. It is a
 * best effort by design: an id it cannot read cheaply (escaped key, nested
 * value, more than `MAX_ID_BYTES`) is `null`, which JSON-RPC allows.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const MAX_ID_BYTES = 256

export class IdScanner {
  private depth = 0
  private inString = false
  private escaped = false
  /** at depth 1, the next string is a key */
  private keyNext = false
  /** the bytes of the top-level key being read (`null`: not reading one, or not "id") */
  private key: number[] | null = null
  /** the last top-level key ended, and was "id" */
  private idKey = false
  /** the raw bytes of the id's value while they are read */
  private value: number[] | null = null
  private found: string | number | null = null

  feed(chunk: Uint8Array): void {
    const n = chunk.length
    let backslash = -2
    let i = 0
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false
          this.take(chunk[i]!)
          // an escape in a key: not a key this scanner reads
          this.key = null
          i++
          continue
        }
        let quote = chunk.indexOf(QUOTE, i)
        if (quote === -1) quote = n
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i)
        const stop = backslash !== -1 && backslash < quote ? backslash : quote
        if (this.key || this.value) for (let j = i; j < stop; j++) this.take(chunk[j]!)
        if (stop === n) return
        this.take(chunk[stop]!)
        if (chunk[stop] === BACKSLASH) this.escaped = true
        else this.endString()
        i = stop + 1
        continue
      }
      const c = chunk[i]!
      this.structural(c)
      i++
    }
  }

  /** The id found (the last one, as `JSON.parse` would keep), or `null`. */
  id(): string | number | null {
    return this.found
  }

  private structural(c: number): void {
    if (c === QUOTE) {
      this.inString = true
      if (this.depth === 1 && this.keyNext && !this.value) {
        this.key = []
        this.keyNext = false
        return
      }
      this.take(c)
      return
    }
    if (this.depth === 1 && !this.value) {
      if (c === 0x3a /* : */ && this.idKey) {
        this.idKey = false
        this.value = []
        return
      }
    }
    if (this.depth === 1 && (c === 0x2c /* , */ || c === 0x7d /* } */)) {
      this.endValue()
      if (c === 0x2c) this.keyNext = true
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      this.take(c)
      this.depth++
      if (this.depth === 1) this.keyNext = c === 0x7b
      return
    }
    if (c === 0x7d || c === 0x5d /* ] */) {
      this.depth--
      this.take(c)
      return
    }
    this.take(c)
  }

  private endString(): void {
    this.inString = false
    if (this.key) {
      // `"id"` is the bytes i, d and the closing quote taken with them
      const k = this.key
      this.idKey = k.length === 3 && k[0] === 0x69 && k[1] === 0x64
      this.key = null
    }
  }

  private take(byte: number): void {
    const target = this.key ?? this.value
    if (!target) return
    // a value or key longer than any id worth recovering: give up on it (constant memory)
    if (target.length >= MAX_ID_BYTES) {
      if (target === this.key) this.key = null
      else this.value = null
      return
    }
    target.push(byte)
  }

  private endValue(): void {
    if (!this.value) return
    const text = Buffer.from(this.value).toString('utf8').trim()
    this.value = null
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return
    }
    if (typeof parsed === 'string' || (typeof parsed === 'number' && Number.isFinite(parsed))) this.found = parsed
  }
}
