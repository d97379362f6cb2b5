/**
 * The sub-call channels (shared-memory rings with a port for what does not
 * fit) and the records they carry. Internal parts: the runtime's behaviour
 * through them is covered by the run specs; here the edges the run specs
 * reach only by chance — wrapping, a full ring, records larger than the ring,
 * two threads at once.
 */
import { MessageChannel, Worker } from 'node:worker_threads'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
// the worker channel and its records are private to @dsh/code-runtime: tested here on purpose
import { Channel, channelEnds } from '../../core/code-runtime/src/worker/channel.js'
import { decodeCall, decodeResult, encodeCall, encodeResult } from '../../core/code-runtime/src/worker/records.js'

function pair(capacity: number) {
  const [a, b] = channelEnds(capacity, MessageChannel)
  const writer = new Channel(a)
  const reader = new Channel(b)
  return { writer, reader, close: () => (writer.close(), reader.close()) }
}

function drain(reader: Channel): string[] {
  const out: string[] = []
  for (let text = reader.read(); text !== undefined; text = reader.read()) out.push(text)
  return out
}

describe('a channel', () => {
  it('refuses a capacity that is not a power of two of at least 64', () => {
    expect(() => channelEnds(100, MessageChannel)).toThrow(/power of two/)
    expect(() => channelEnds(32, MessageChannel)).toThrow(/at least 64/)
  })

  it('delivers records in order across many wraps of a small ring, multi-byte text included', () => {
    const { writer, reader, close } = pair(64)
    const sent: string[] = []
    const got: string[] = []
    for (let i = 0; i < 2000; i++) {
      const text = `${i}:${'é€😀x'.repeat(i % 7)}`
      writer.write(text)
      sent.push(text)
      // read behind the writer by a varying distance, so the ring is at every fill level
      if (i % 3 !== 0) got.push(...drain(reader).slice(0))
    }
    got.push(...drain(reader))
    expect(got).toEqual(sent)
    expect(reader.hasRecord()).toBe(false)
    close()
  })

  it('sends a record larger than the ring through its port, in its place among the others', () => {
    const { writer, reader, close } = pair(64)
    const big = 'b'.repeat(10_000)
    writer.write('one')
    writer.write(big)
    writer.write('three')
    expect(reader.hasRecord()).toBe(true)
    expect(drain(reader)).toEqual(['one', big, 'three'])
    close()
  })

  it('keeps the order when the ring is full and the reader is not reading', () => {
    const { writer, reader, close } = pair(64)
    const sent = Array.from({ length: 50 }, (_, i) => `record ${i}`)
    for (const text of sent) writer.write(text)
    // reading a few frees room in the ring: the next record goes there, behind those on the port
    const first = [reader.read(), reader.read(), reader.read()]
    writer.write('after')
    expect([...first, ...drain(reader)]).toEqual([...sent, 'after'])
    close()
  })

  it('keeps every record, in order, whatever the sizes and however reads and writes interleave', () => {
    const step = fc.oneof(fc.record({ write: fc.string({ unit: 'binary', maxLength: 120 }) }), fc.record({ read: fc.nat(4) }))
    fc.assert(
      fc.property(fc.constantFrom(64, 128, 256), fc.array(step, { maxLength: 200 }), (capacity, steps) => {
        const { writer, reader, close } = pair(capacity)
        const sent: string[] = []
        const got: string[] = []
        try {
          for (const s of steps) {
            if ('write' in s) {
              writer.write(s.write)
              sent.push(s.write)
            } else {
              for (let i = 0; i < s.read; i++) {
                const text = reader.read()
                if (text !== undefined) got.push(text)
              }
            }
          }
          got.push(...drain(reader))
          expect(got).toEqual(sent)
        } finally {
          close()
        }
      }),
      { numRuns: 300 },
    )
  })

  it('carries empty records', () => {
    const { writer, reader, close } = pair(64)
    writer.write('')
    writer.write('x')
    expect(drain(reader)).toEqual(['', 'x'])
    close()
  })

  it('delivers 20,000 records of random sizes from another thread, in order and intact', async () => {
    const [writerEnd, readerEnd] = channelEnds(1024, MessageChannel)
    const reader = new Channel(readerEnd)
    const count = 20_000
    const channelUrl = new URL('../../core/code-runtime/src/worker/channel.js', import.meta.url).href
    const source = `
      import { workerData } from 'node:worker_threads'
      const { Channel } = await import(${JSON.stringify(channelUrl)})
      const writer = new Channel(workerData.end)
      let seed = 7
      for (let i = 0; i < ${count}; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff
        writer.write(i + ':' + 'ä'.repeat(seed % 700))
      }
    `
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
      workerData: { end: writerEnd },
      transferList: [writerEnd.port],
    })
    const exited = new Promise<number>(resolve => worker.on('exit', resolve))
    let seed = 7
    let next = 0
    let finished = false
    void exited.then(() => (finished = true))
    while (next < count) {
      const text = reader.read()
      if (text === undefined) {
        if (finished && !reader.hasRecord()) break
        await new Promise(resolve => setImmediate(resolve))
        continue
      }
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      expect(text).toBe(`${next}:${'ä'.repeat(seed % 700)}`)
      next++
    }
    expect(await exited).toBe(0)
    expect(next).toBe(count)
    reader.close()
  }, 60_000)
})

describe('sub-call records', () => {
  it('round-trip a call, its JSON taken as it is', () => {
    const json = '{"a":"x,y","b":[1,2]}'
    expect(decodeCall(encodeCall(3, 41, 2, json))).toEqual({ run: 3, call: 41, tool: 2, json })
  })

  it('round-trip every kind of answer', () => {
    const answers = [
      { t: 'result', run: 1, call: 2, ok: true, json: '{"v":"a,b"}' },
      { t: 'result', run: 1, call: 3, ok: false, code: 'DENIED', message: 'no, "really", no' },
      { t: 'result', run: 1, call: 4, ok: false, code: 'LIMIT', message: 'too big, 5 bytes', limit: true },
    ] as const
    for (const answer of answers) expect(decodeResult(encodeResult(answer))).toEqual(answer)
  })

  it('name what is wrong with a malformed record', () => {
    expect(() => decodeCall('12,3')).toThrow(/sub-call record is malformed: 12,3/)
  })
})
