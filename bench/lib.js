// Timing helpers shared by the benchmarks: medians of repeated samples after warm-up.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const now = () => Number(process.hrtime.bigint()) / 1e6 // ms

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Median ms per iteration of `fn` (async), over `samples` batches of `batch` iterations. */
export async function perIteration(fn, { batch = 1000, samples = 15, warmup = 2 } = {}) {
  const times = []
  for (let s = 0; s < samples + warmup; s++) {
    // no forced collection: after one, V8 shrinks the young generation and the batch pays to grow it back
    const start = now()
    for (let i = 0; i < batch; i++) await fn(i)
    const elapsed = (now() - start) / batch
    if (s >= warmup) times.push(elapsed)
  }
  return median(times)
}

/** Median ms of one run of `fn`, over `samples` runs after `warmup`. */
export async function perRun(fn, { samples = 9, warmup = 2, setup } = {}) {
  const times = []
  for (let s = 0; s < samples + warmup; s++) {
    const state = setup ? await setup() : undefined
    globalThis.gc?.()
    const start = now()
    await fn(state)
    const elapsed = now() - start
    if (s >= warmup) times.push(elapsed)
  }
  return median(times)
}

export function tempDir(prefix = 'dsh-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
