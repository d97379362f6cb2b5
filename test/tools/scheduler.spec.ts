import { describe, expect, it } from 'vitest'
import { ToolScheduler } from '@dsh/tools'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe('ToolScheduler', () => {
  it('runs parallel calls together and exclusive calls alone', async () => {
    const scheduler = new ToolScheduler()
    let running = 0
    let max = 0
    const log: string[] = []
    const task = (name: string, gate: Promise<void>) => async () => {
      running++
      max = Math.max(max, running)
      log.push(`start ${name} (${running})`)
      await gate
      running--
      log.push(`end ${name}`)
    }
    const a = deferred(), b = deferred(), x = deferred(), c = deferred()
    const runs = [
      scheduler.run('parallel', task('a', a.promise)),
      scheduler.run('parallel', task('b', b.promise)),
      scheduler.run('exclusive', task('x', x.promise)),
      scheduler.run('parallel', task('c', c.promise)),
    ]
    await Promise.resolve()
    expect(log).toEqual(['start a (1)', 'start b (2)'])
    a.resolve(); b.resolve()
    await new Promise((r) => setTimeout(r, 0))
    expect(log.slice(2)).toEqual(['end a', 'end b', 'start x (1)'])
    x.resolve()
    await new Promise((r) => setTimeout(r, 0))
    expect(log.slice(5)).toEqual(['end x', 'start c (1)'])
    c.resolve()
    await Promise.all(runs)
    expect(max).toBe(2)
  })

  it('keeps going after a task rejects', async () => {
    const scheduler = new ToolScheduler()
    await expect(scheduler.run('exclusive', async () => { throw new Error('x') })).rejects.toThrow('x')
    expect(await scheduler.run('exclusive', async () => 7)).toBe(7)
  })

  it('idle() waits for running and queued calls, and a task that throws synchronously still frees its slot', async () => {
    const scheduler = new ToolScheduler()
    await scheduler.idle()
    const gate = deferred()
    let finished = 0
    const first = scheduler.run('exclusive', async () => { await gate.promise; finished++ })
    const second = scheduler.run('parallel', async () => { finished++ })
    let idle = false
    const waiting = scheduler.idle().then(() => { idle = true })
    await new Promise((r) => setTimeout(r, 0))
    expect(idle).toBe(false)
    gate.resolve()
    await Promise.all([first, second, waiting])
    expect(finished).toBe(2)
    await expect(scheduler.run('exclusive', () => { throw new Error('sync') })).rejects.toThrow('sync')
    await expect(scheduler.run('exclusive', async () => 'next')).resolves.toBe('next')
  })
})
