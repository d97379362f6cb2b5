// @ts-check
/** One direction of the sub-call traffic in shared memory, since a message would wake an event loop and clone (the layout: docs/architecture.md, Code mode). */
import { receiveMessageOnPort } from 'node:worker_threads'

const HEAD = 0
const SENT = 1
const TAIL = 2
const headerBytes = 16
const recordHeader = 8
const wrap = -1

/** @typedef {{ buffer: SharedArrayBuffer, port: import('node:worker_threads').MessagePort }} ChannelEnd */

/**
 * The two ends of a channel whose ring holds `capacity` bytes (a power of
 * two, at least 64): one for the writer's thread, one for the reader's.
 * @param {number} capacity
 * @param {typeof import('node:worker_threads').MessageChannel} MessageChannelCtor
 * @returns {[ChannelEnd, ChannelEnd]}
 */
export function channelEnds(capacity, MessageChannelCtor) {
  if (!(capacity >= 64 && (capacity & (capacity - 1)) === 0)) throw new RangeError(`a channel's capacity must be a power of two of at least 64, got ${capacity}`)
  const buffer = new SharedArrayBuffer(headerBytes + capacity)
  const { port1, port2 } = new MessageChannelCtor()
  return [
    { buffer, port: port1 },
    { buffer, port: port2 },
  ]
}

export class Channel {
  /** @param {ChannelEnd} end */
  constructor(end) {
    this.port = end.port
    // nothing listens on it, and it never keeps a thread alive
    this.port.unref()
    this.words = new Int32Array(end.buffer, 0, 4)
    this.capacity = end.buffer.byteLength - headerBytes
    this.bytes = Buffer.from(end.buffer, headerBytes, this.capacity)
    this.ints = new Int32Array(end.buffer, headerBytes, this.capacity >> 2)
    /** the number of the next record written (writer) or read (reader) */
    this.next = 0
    /** records taken from the port (reader) */
    this.taken = 0
  }

  /**
   * Append a record (writer's side).
   * @param {string} text
   */
  write(text) {
    const number = this.next
    this.next = (number + 1) | 0
    const { words, capacity } = this
    const head = Atomics.load(words, HEAD)
    const room = capacity - ((head - Atomics.load(words, TAIL)) | 0)
    const at = head & (capacity - 1)
    const toEnd = capacity - at
    const length = Buffer.byteLength(text)
    const size = recordHeader + pad(length)
    if (size <= toEnd && size <= room) return this.put(at, (head + size) | 0, number, text, length)
    // crossing the end: skip to the beginning (records are 4-aligned, so the marker fits)
    if (size > toEnd && toEnd + size <= room) {
      this.ints[at >> 2] = wrap
      return this.put(0, (head + toEnd + size) | 0, number, text, length)
    }
    this.port.postMessage([number, text])
    Atomics.add(words, SENT, 1)
  }

  /**
   * @param {number} at
   * @param {number} head  the head once the record is in
   * @param {number} number
   * @param {string} text
   * @param {number} length
   */
  put(at, head, number, text, length) {
    this.ints[at >> 2] = length
    this.ints[(at >> 2) + 1] = number
    if (length > 0) this.bytes.write(text, at + recordHeader, length, 'utf8')
    // the store publishes the record: everything above happens before the reader sees it
    Atomics.store(this.words, HEAD, head)
  }

  /** Whether a record is waiting (reader's side). */
  hasRecord() {
    const { words } = this
    return Atomics.load(words, HEAD) !== Atomics.load(words, TAIL) || Atomics.load(words, SENT) !== this.taken
  }

  /**
   * The next record, if one was written (reader's side).
   * @returns {string | undefined}
   */
  read() {
    const { words, capacity, ints } = this
    let tail = Atomics.load(words, TAIL)
    if (Atomics.load(words, HEAD) !== tail) {
      let at = tail & (capacity - 1)
      if (ints[at >> 2] === wrap) {
        tail = (tail + capacity - at) | 0
        at = 0
      }
      if (ints[(at >> 2) + 1] === this.next) {
        const length = /** @type {number} */ (ints[at >> 2])
        const text = this.bytes.toString('utf8', at + recordHeader, at + recordHeader + length)
        Atomics.store(words, TAIL, (tail + recordHeader + pad(length)) | 0)
        this.next = (this.next + 1) | 0
        return text
      }
    }
    if (Atomics.load(words, SENT) === this.taken) return undefined
    const received = /** @type {{ message: [number, string] } | undefined} */ (receiveMessageOnPort(this.port))
    if (!received || received.message[0] !== this.next) throw new Error('a channel lost the order of its records')
    this.taken = (this.taken + 1) | 0
    this.next = (this.next + 1) | 0
    return received.message[1]
  }

  close() {
    this.port.close()
  }
}

/** @param {number} bytes */
function pad(bytes) {
  return (bytes + 3) & ~3
}
