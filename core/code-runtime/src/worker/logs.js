// @ts-check
/**
 * What a program wrote with `console.*`, one line per call, capped at a byte
 * budget. Past the cap the text is cut at a character boundary and a marker
 * line says so; later writes are dropped without being formatted (the prelude
 * stops calling once `append` answers `true`).
 */
const encoder = new TextEncoder()

export class LogBuffer {
  /** @param {number} maxBytes */
  constructor(maxBytes) {
    this.maxBytes = maxBytes
    this.usedBytes = 0
    /** @type {string[]} */
    this.parts = []
    this.truncated = false
  }

  /**
   * @param {string} line
   * @returns {boolean} whether the buffer is full
   */
  append(line) {
    if (this.truncated) return true
    const text = line + '\n'
    const bytes = Buffer.byteLength(text)
    if (this.usedBytes + bytes <= this.maxBytes) {
      this.parts.push(text)
      this.usedBytes += bytes
      return false
    }
    const room = new Uint8Array(this.maxBytes - this.usedBytes)
    const { read } = encoder.encodeInto(text, room)
    this.parts.push(text.slice(0, read))
    this.usedBytes = this.maxBytes
    this.truncated = true
    return true
  }

  /** @returns {string} */
  text() {
    const text = this.parts.join('')
    if (!this.truncated) return text
    return `${text}${text.endsWith('\n') ? '' : '\n'}[console output truncated at ${this.maxBytes} bytes]\n`
  }
}
