// No growth with calls: a kernel with the built-in default set and 1,000 tools makes 200,000
// sequential calls in one session (bench/children/memory-run.js, the child of memory.kernel_rss_mb, on the
// build), and what it holds after a forced collection at 200,000 is what it held at 100,000,
// within a margin. A figure, not a timing: memory.kernel_rss_mb in bench/ gives the RSS.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const RUN = fileURLToPath(new URL('../../bench/children/memory-run.js', import.meta.url))
/** MB; the session window alone is 3 MB of line buffers, held events are 12,500 at most */
const MARGIN_MB = 3

describe('memory over a long session', () => {
  it('holds no more after 200,000 calls than after 100,000 (heap after gc() and buffers)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', RUN, '100000,200000', '1000'], { maxBuffer: 1 << 20 })
    const [at100k, at200k] = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))
    expect(at100k.calls).toBe(100_000)
    expect(at200k.calls).toBe(200_000)
    const held = (m: { heapUsedMb: number; arrayBuffersMb: number }) => m.heapUsedMb + m.arrayBuffersMb
    expect(held(at200k) - held(at100k)).toBeLessThan(MARGIN_MB)
  }, 900_000)
})
