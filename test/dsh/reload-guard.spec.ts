// The ReloadGuard of `dsh mcp --watch` (decisions/2026-12-02-reload-during-calls.md), on real
// files: a change made inside a call's window is refused until a change made with no call in
// flight replaces it; overlapping calls form one window; a change put back before the window ends
// is no change; a reload waits for the calls in flight and holds new ones while it runs.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ReloadGuard } from '../../core/dsh/src/reload/reload-guard.js'
import { tempDirs } from '../temp-dirs.js'

const dirs = tempDirs()
afterEach(() => dirs.removeAll())

function guarded(): { guard: ReloadGuard; file: string; reload: () => Promise<'applied' | string[]> } {
  const file = join(dirs.make('dsh-guard-'), 'dsh.yml')
  writeFileSync(file, 'mine: 1\n')
  const guard = new ReloadGuard()
  guard.watch([file])
  const reload = async () => {
    const outcome = await guard.reload(async () => 'applied' as const)
    return 'refused' in outcome ? outcome.refused.files : outcome.applied
  }
  return { guard, file, reload }
}

describe('ReloadGuard', () => {
  it('a change made during a call is refused, naming the file and the call; one made after it, with no call in flight, is applied', async () => {
    const { guard, file, reload } = guarded()
    await guard.enter('c1', 'bash')
    writeFileSync(file, 'mode: danger-full-access\n')
    guard.leave('c1')
    const outcome = await guard.reload(async () => 'applied')
    expect('refused' in outcome && outcome.refused).toMatchObject({ files: [file], calls: ['c1 (bash)'], message: expect.stringMatching(/changed while a call was running \(c1 \(bash\)\)/) })
    // still what the call left: refused again
    expect(await reload()).toEqual([file])
    // a later call that leaves it alone does not make it the person's
    await guard.enter('c2', 'read')
    guard.leave('c2')
    expect(await reload()).toEqual([file])
    writeFileSync(file, 'mine: 2\n')
    expect(await reload()).toBe('applied')
  })

  it('overlapping calls are one window: a change during the first is caught when the last ends', async () => {
    const { guard, file, reload } = guarded()
    await guard.enter('a', 'bash')
    await guard.enter('b', 'bash')
    writeFileSync(file, 'evil: 1\n')
    guard.leave('a')
    await guard.enter('c', 'bash')
    guard.leave('b')
    guard.leave('c')
    const outcome = await guard.reload(async () => 'applied')
    expect('refused' in outcome && outcome.refused.calls).toEqual(['a (bash)', 'b (bash)', 'c (bash)'])
    expect(await reload()).toEqual([file])
  })

  it('a change put back before the window ends (the sandbox restoring it) is no change; a person\'s change before the call is applied', async () => {
    const { guard, file, reload } = guarded()
    writeFileSync(file, 'mine: 2\n')
    await guard.enter('c1', 'bash')
    writeFileSync(file, 'evil: 1\n')
    writeFileSync(file, 'mine: 2\n')
    guard.leave('c1')
    expect(await reload()).toBe('applied')
  })

  it('a reload waits for the calls in flight, and a call that arrives while it runs waits for it', async () => {
    const { guard, file } = guarded()
    const order: string[] = []
    await guard.enter('c1', 'bash')
    let finishReload!: () => void
    const reloading = guard.reload(async () => {
      order.push('reload runs')
      await new Promise<void>((resolve) => (finishReload = resolve))
      order.push('reload done')
      return 'applied'
    })
    await Promise.resolve()
    expect(order).toEqual([])
    writeFileSync(file, 'mine: 2\n') // a person's edit, made... during c1: refused below
    guard.leave('c1')
    const outcome = await reloading
    expect('refused' in outcome).toBe(true)
    // now with no change pending: the reload runs, and a call entering meanwhile waits for it
    writeFileSync(file, 'mine: 3\n')
    const second = guard.reload(async () => {
      order.push('reload runs')
      await new Promise<void>((resolve) => (finishReload = resolve))
      order.push('reload done')
      return 'applied'
    })
    await new Promise((resolve) => setImmediate(resolve))
    const entering = guard.enter('c2', 'bash').then(() => order.push('c2 enters'))
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['reload runs'])
    finishReload()
    await second
    await entering
    expect(order).toEqual(['reload runs', 'reload done', 'c2 enters'])
    guard.leave('c2')
  })
})
