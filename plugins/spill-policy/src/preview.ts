/**
 * A head and tail preview of UTF-8 text, cut on character boundaries. The
 * text arrives encoded (the same bytes that go to the spill file), so a cut
 * is a byte index moved off any continuation byte (`10xxxxxx`): it never
 * splits a multi-byte character, and since JS surrogate pairs are one
 * four-byte character in UTF-8, never a pair either.
 */

export interface Preview {
  text: string
  /** bytes of the original kept from the start and from the end */
  headBytes: number
  tailBytes: number
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80

/** The largest prefix of `bytes` that is at most `max` bytes and ends on a character boundary. */
export function headCut(bytes: Uint8Array, max: number): number {
  if (max >= bytes.length) return bytes.length
  let end = Math.max(0, max)
  while (end > 0 && isContinuation(bytes[end])) end--
  return end
}

/** The start of the largest suffix of `bytes` that is at most `max` bytes and starts on a character boundary. */
export function tailCut(bytes: Uint8Array, max: number): number {
  if (max >= bytes.length) return 0
  let start = bytes.length - Math.max(0, max)
  while (start < bytes.length && isContinuation(bytes[start])) start++
  return start
}

function omission(bytes: number): string {
  return `\n[... ${bytes} bytes omitted ...]\n`
}

/**
 * A preview of `bytes` (longer than `budget`) in at most `budget` UTF-8 bytes:
 * head, an omission line, tail. Undefined when not even the omission line fits.
 */
export function preview(bytes: Buffer, budget: number): Preview | undefined {
  // the omission line with the most digits it can need
  const reserved = Buffer.byteLength(omission(bytes.length))
  const room = budget - reserved
  if (room < 0) return
  const head = headCut(bytes, Math.floor(room / 2))
  const tail = Math.max(head, tailCut(bytes, room - head))
  return {
    text: bytes.toString('utf8', 0, head) + omission(tail - head) + bytes.toString('utf8', tail),
    headBytes: head,
    tailBytes: bytes.length - tail,
  }
}
