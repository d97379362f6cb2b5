// sessions.append_per_s
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from '@dsh/kernel'
import { perRun, tempDir } from './lib.js'

const N = 20_000

export async function run() {
  const tmp = tempDir()
  try {
    let n = 0
    const sequential = await perRun(async () => {
      const session = new Session(tmp.dir, { id: `seq${n++}` })
      for (let i = 0; i < N; i++) await session.append('turn/begin', { turn: i })
      session.close()
    }, { samples: 5 })
    const burst = await perRun(async () => {
      const session = new Session(tmp.dir, { id: `burst${n++}` })
      const pending = []
      for (let i = 0; i < N; i++) pending.push(session.append('turn/begin', { turn: i }))
      await Promise.all(pending)
      session.close()
    }, { samples: 5 })
    // baseline: appendFileSync of the same lines
    const baseline = await perRun(() => {
      const path = join(tmp.dir, `base${n++}.jsonl`)
      for (let i = 0; i < N; i++) appendFileSync(path, JSON.stringify({ seq: i, time: Date.now(), type: 'turn/begin', data: { turn: i } }) + '\n')
    }, { samples: 3 })
    return [
      { name: 'sessions.append_per_s', value: N / (sequential / 1000), unit: 'events/s', target: '>= 100000', baseline: { name: 'appendFileSync per event', value: N / (baseline / 1000), unit: 'events/s' }, note: `each append awaited; burst of ${N} unawaited: ${Math.round(N / (burst / 1000))}/s` },
    ]
  } finally {
    tmp.remove()
  }
}
