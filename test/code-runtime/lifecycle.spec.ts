import { CodeRuntime } from '@dsh/code-runtime'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { never, request, sleep } from './helpers.js'

const built = new URL('../../core/code-runtime/lib/index.js', import.meta.url)

/**
 * In a process of its own (it needs the built package, lib/: `npm run build` makes it), one run of
 * `return 1` on a runtime made with `options`; the process must then exit by itself, within
 * execFileSync's timeout. Returns the run's outcome.
 */
function runAndExit(options: string): unknown {
  const script = [
    'const { CodeRuntime } = await import(process.argv[1])',
    `const runtime = new CodeRuntime(${options})`,
    "const outcome = await runtime.run({ code: 'return 1', tools: [], call: async () => ({ ok: true, value: null }) })",
    'console.log(JSON.stringify(outcome))',
  ].join('\n')
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, built.href], { encoding: 'utf8', timeout: 15_000 }))
}

describe('runtime lifecycle', () => {
  it('takes runs before its workers are ready: they wait, they are not refused', async () => {
    const runtime = new CodeRuntime({ workers: 1 })
    try {
      expect(await runtime.run(request('return "early"'))).toMatchObject({ ok: true, value: 'early' })
    } finally {
      await runtime.dispose()
    }
  })

  it('ends runs in flight and waiting ABORTED on dispose, and aborts their sub-calls', async () => {
    const runtime = new CodeRuntime({ workers: 1 })
    await runtime.ready()
    const signals: AbortSignal[] = []
    const inFlight = runtime.run({
      code: 'await tools.wait({})',
      tools: ['wait'],
      call: (_name, _args, _index, signal) => {
        signals.push(signal)
        return new Promise(() => {})
      },
    })
    const waiting = runtime.run(request('return 1'))
    while (signals.length === 0) await sleep(5)
    await runtime.dispose()
    const disposed = { ok: false, code: 'ABORTED', message: 'the code runtime was disposed', logs: '' }
    expect(await inFlight).toEqual(disposed)
    expect(await waiting).toEqual(disposed)
    expect(signals[0]!.aborted).toBe(true)
  })

  it('ends a busy loop ABORTED on dispose', async () => {
    const runtime = new CodeRuntime({ workers: 1 })
    await runtime.ready()
    const busy = runtime.run(request('while (true) {}'))
    await sleep(50)
    await runtime.dispose()
    expect(await busy).toMatchObject({ ok: false, code: 'ABORTED' })
  })

  it('answers runs after dispose ABORTED, and disposes once however often it is called', async () => {
    const runtime = new CodeRuntime({ workers: 1 })
    const ready = runtime.ready()
    const first = runtime.dispose()
    // disposed before its workers were ready: ready() settles, it does not hang
    await ready
    expect(runtime.dispose()).toBe(first)
    await first
    expect(await runtime.run(request('return 1'))).toEqual({ ok: false, code: 'ABORTED', message: 'the code runtime was disposed', logs: '' })
  })

  it('serves many runs at once with a small pool', async () => {
    const runtime = new CodeRuntime({ workers: 2 })
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => runtime.run(request(`return (await tools.echo({ i: ${i} })).args.i`))),
      )
      expect(outcomes.map(o => o.ok && o.value)).toEqual(Array.from({ length: 12 }, (_, i) => i))
    } finally {
      await runtime.dispose()
    }
  })

  it.skipIf(!existsSync(built))('lets the host process exit with an idle runtime left undisposed, whatever its node flags', () => {
    // the pool unrefs idle workers: only a run in flight (its deadline timer) keeps the process alive
    expect(runAndExit('{ workers: 1 }')).toEqual({ ok: true, value: 1, logs: '' })
  })

  it('keeps the bridge signal of a finished run aborted even if the bridge answers late', async () => {
    const runtime = new CodeRuntime({ workers: 1 })
    try {
      const outcome = await runtime.run({ code: 'tools.never({})\nawait tools.never({})', tools: ['never'], call: never, limits: { timeoutMs: 100 } })
      expect(outcome).toMatchObject({ ok: false, code: 'TIMEOUT' })
      expect(await runtime.run(request('return 1'))).toMatchObject({ ok: true })
    } finally {
      await runtime.dispose()
    }
  })
})

describe('host warm-up runs', () => {
  it('refuses a count that is not a whole number', () => {
    expect(() => new CodeRuntime({ warmUpRuns: -1 })).toThrow(/warmUpRuns must be a whole number, got -1/)
    expect(() => new CodeRuntime({ warmUpRuns: 1.5 })).toThrow(/warmUpRuns must be a whole number, got 1.5/)
  })

  it('run while the pool is idle, in between real runs, which keep their own answers and order', async () => {
    const runtime = new CodeRuntime({ workers: 1, warmUpRuns: 6 })
    try {
      await runtime.ready()
      expect(runtime.warmUpPending).toBeGreaterThan(0)
      // real runs submitted while warm-up runs go on: each gets its own bridge's answers
      const calls: unknown[] = []
      const outcomes = await Promise.all(
        [1, 2, 3].map(n =>
          runtime.run({
            code: `return (await tools.twice({ n: ${n} })).n`,
            tools: ['twice'],
            call: async (_name, args) => {
              calls.push(args)
              return { ok: true, value: { n: (args as { n: number }).n * 2 } }
            },
          }),
        ),
      )
      expect(outcomes.map(o => o.ok && o.value)).toEqual([2, 4, 6])
      expect(calls).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
      while (runtime.warmUpPending > 0) await sleep(10)
      expect(await runtime.run(request('return "after"'))).toMatchObject({ ok: true, value: 'after' })
    } finally {
      await runtime.dispose()
    }
  })

  it.skipIf(!existsSync(built))('never keep the host process alive', () => {
    // a million runs of 50 sub-calls would take hours: the process exits once its own work is done
    expect(runAndExit('{ workers: 2, warmUpRuns: 1_000_000 }')).toEqual({ ok: true, value: 1, logs: '' })
  })

  it('stop at dispose, with nothing left hanging', async () => {
    const runtime = new CodeRuntime({ workers: 2, warmUpRuns: 1000 })
    await runtime.ready()
    await sleep(30)
    await runtime.dispose()
    expect(await runtime.run(request('return 1'))).toMatchObject({ ok: false, code: 'ABORTED' })
  })
})
