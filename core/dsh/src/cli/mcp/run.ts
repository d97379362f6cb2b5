/**
 * `dsh mcp` as a process: the kernel from a config file, the server on
 * stdin/stdout, `--watch` reloading on file change, and a clean shutdown when
 * stdin ends, the client goes away or SIGTERM/SIGINT arrives. Nothing but the
 * protocol is written to stdout; diagnostics go to stderr.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describeError } from '@dsh/kernel'
import { raw } from '@dsh/kernel/internals'
import type { Kernel } from '../../kernel/kernel.js'
import type { Tracing } from '../../otel/tracing.js'
import { mcpLimits, type McpLimits } from '../../config/mcp-limits.js'
import { buildId, firstAnswerFile, readFirstAnswer, sameAnswer, writeFirstAnswer, type FirstAnswer } from './first-answer.js'
import type { DshMcpServer } from '@dsh/mcp'
import { rateLimitedLog } from './rate-limited-log.js'
import type { SessionLock } from '../../sessions/lock.js'
import { claimStdout } from './stdout-guard.js'
import type { ConfigWatcher } from '../../reload/watch.js'
import { killChildren, settleWithin } from './bounded-dispose.js'

export interface RunMcpOptions {
  /** the dsh.yml to load (none: the built-in default set) */
  configFile?: string
  /** reload when the config file changes (needs `configFile`) */
  watch?: boolean
  /** set up the OpenTelemetry SDK from `OTEL_*` and load the otel plugin (unless the config does) */
  otel?: boolean
  /** the id of an existing session to resume */
  resume?: string
}

/** How long the shutdown waits for cancelled calls to end (DESIGN §16.1: the process is gone within 100 ms). */
const SHUTDOWN_GRACE_MS = 50
/**
 * From the shutdown's start, when the kernel's dispose is no longer waited for (bounded-dispose.ts):
 * the session log is closed before; what is left of 100 ms is the exit's flush.
 */
const SHUTDOWN_BUDGET_MS = 80
/** the dispose's least share of the bound, when closing the session took the rest */
const DISPOSE_FLOOR_MS = 10

/** With a snapshot, the kernel starts this long after connecting at the latest (sooner on tools/list or a call). */
const KERNEL_START_DELAY_MS = 50

/** What ends the server: stdin closing, SIGTERM, SIGINT, or stdout failing (the client went away). */
function endings(): { ended: Promise<string>; off(): void } {
  let finish!: (reason: string) => void
  const ended = new Promise<string>((resolve) => (finish = resolve))
  const onStdinEnd = () => finish('stdin closed')
  const onTerm = () => finish('SIGTERM')
  const onInt = () => finish('SIGINT')
  // writing to a closed pipe fails with EPIPE
  const onStdoutError = (error: Error) => finish(`stdout failed: ${describeError(error)}`)
  process.stdin.once('end', onStdinEnd)
  process.stdin.once('close', onStdinEnd)
  process.once('SIGTERM', onTerm)
  process.once('SIGINT', onInt)
  process.stdout.on('error', onStdoutError)
  return {
    ended,
    off() {
      process.stdin.off('end', onStdinEnd)
      process.stdin.off('close', onStdinEnd)
      process.off('SIGTERM', onTerm)
      process.off('SIGINT', onInt)
      process.stdout.off('error', onStdoutError)
    },
  }
}

const log = (line: string) => {
  process.stderr.write(`${line}\n`)
}

/** Serve until the connection ends; resolves with the exit code. */
export async function runMcpServer(options: RunMcpOptions): Promise<number> {
  // claimed before any plugin loads: a plugin's console.log at start would corrupt the first message
  const stdout = claimStdout()
  // Why started here and awaited later: the SDK (zod's schemas) loads while the kernel starts, and
  // its evaluation fills the time the kernel waits for the sandbox probe's process
  const protocol = import('@dsh/mcp')
  protocol.catch(() => {})
  // the answers of the last start like this one (first-answer.ts): only a plain start has one
  const snapshot = !options.watch && !options.otel && options.resume === undefined ? firstAnswerFile({ configFile: options.configFile, build: buildId() }) : undefined
  const early = snapshot ? readFirstAnswer(snapshot) : undefined
  // from the start with a snapshot: the client may go away before the kernel is up
  const ending = early ? endings() : undefined
  // Why the kernel waits for the first answers with a snapshot: its start would hold them (one thread)
  let go!: () => void
  const triggered = new Promise<void>((resolve) => (go = resolve))
  if (!early) go()
  let tracing: Tracing | undefined
  const sessionId = options.resume ?? `mcp-${randomUUID()}`
  /** said on stderr once what was started is stopped: the exit code of a start that failed */
  const fail = async (message: string, kernel?: Kernel): Promise<2> => {
    await kernel?.dispose().catch(() => {})
    await tracing?.shutdown().catch(() => {})
    stdout.release()
    log(`dsh mcp: ${message}`)
    return 2
  }
  // the kernel, its session lock taken: what a call waits for
  const starting = (async (): Promise<{ kernel: Kernel; lock: SessionLock } | { failed: 2 }> => {
    await triggered
    let kernel: Kernel
    let start: typeof import('./kernel-start.js')
    try {
      start = await import('./kernel-start.js')
    } catch (error) {
      return { failed: await fail(`the kernel cannot be loaded: ${describeError(error)}`) }
    }
    const { commandOptions, configNotice, createKernel, lockSession, plugOtel } = start
    log(configNotice('mcp', options.configFile && resolve(options.configFile)))
    try {
      // the SDK only with --otel: its packages are not even loaded otherwise
      if (options.otel) tracing = (await import('../../otel/tracing.js')).startTracing()
      kernel = await createKernel(commandOptions(options.configFile), { probeSandbox: true })
    } catch (error) {
      return { failed: await fail(`${options.otel && !tracing ? '--otel: ' : ''}${describeError(error)}`) }
    }
    if (tracing) {
      log(`dsh mcp: ${tracing.summary}`)
      try {
        await plugOtel(kernel)
      } catch (error) {
        return { failed: await fail(`--otel: ${describeError(error)}`, kernel) }
      }
    }
    const sessionsDir = raw(kernel.ctx.sessions).dir
    const logPath = join(sessionsDir, `${sessionId}.jsonl`)
    if (options.resume !== undefined && !existsSync(logPath)) return { failed: await fail(`--session: no session ${JSON.stringify(options.resume)} (${logPath} does not exist)`, kernel) }
    // one server per session: a second one resuming it would interleave its appends with ours
    try {
      mkdirSync(sessionsDir, { recursive: true, mode: 0o700 })
      return { kernel, lock: lockSession(sessionId, logPath) }
    } catch (error) {
      return { failed: await fail(`--session: ${describeError(error)}`, kernel) }
    }
  })()
  // Why the kernel first without a snapshot: a config that cannot load exits 2 before the client is answered
  const started = early ? undefined : await starting
  if (started && 'failed' in started) {
    ending?.off()
    return 2
  }
  let modules: Awaited<typeof protocol>
  try {
    modules = await protocol
  } catch (error) {
    ending?.off()
    go()
    const up = started ?? await starting
    if ('failed' in up) return 2
    up.lock.release()
    return fail(`the MCP server cannot be loaded: ${describeError(error)}`, up.kernel)
  }
  const { createMcpServer, DshStdioTransport } = modules
  const limits = early?.limits ?? mcpLimits(started!.kernel.options.mcp)
  // a client can send malformed messages as fast as it likes: what is said about them is rate-limited
  const report = rateLimitedLog((line) => log(`dsh mcp: ${line}`), { what: 'refused messages' })
  const transport = new DshStdioTransport(process.stdin, stdout.stream, { ...limits, buffered: stdout.buffered, report })
  transport.onerror = (error) => log(`dsh mcp: ${describeError(error)}`)
  // Why only with --watch: without it nothing is reloaded while the server runs, and no call pays the stats
  const guard = options.watch && options.configFile ? new (await import('../../reload/reload-guard.js')).ReloadGuard() : undefined
  const kernelStarted = starting.then((up) => {
    if ('failed' in up) throw new Error('the kernel did not start')
    return up.kernel
  })
  const mcp = createMcpServer(started?.kernel ?? kernelStarted, {
    log, sessionId, calls: guard, maxConcurrentCalls: limits.maxConcurrentCalls, shutdownGraceMs: SHUTDOWN_GRACE_MS,
    admit: (signal) => transport.admit(signal), afterAnswer: (id, done) => transport.afterAnswer(id, done),
    early, onEarlyAnswer: () => setImmediate(go),
  })
  if (early && ending) {
    // initialize and tools/list answered from the snapshot; the kernel starts once tools/list is
    // answered, a call arrives, or soon after connecting (a client that does not list)
    await mcp.connect(transport)
    setTimeout(go, KERNEL_START_DELAY_MS).unref()
    const up = await Promise.race([starting, ending.ended])
    if (typeof up === 'string' || 'failed' in up) {
      // nothing ran and no session was opened: the calls held are answered by the closing server
      if (typeof up === 'string') log(`dsh mcp: shutting down (${up}) before the kernel started`)
      await mcp.close(typeof up === 'string' ? up : 'the kernel did not start').catch(() => {})
      // the kernel's start is left where it is: its processes (the sandbox probe) do not outlive this one
      killChildren()
      ending.off()
      stdout.release()
      return typeof up === 'string' ? 0 : 2
    }
  }
  const { kernel, lock } = (started ?? await starting) as { kernel: Kernel; lock: SessionLock }
  const stop = ending ?? endings()
  if (snapshot) keepFirstAnswer(snapshot, early, mcp, limits)
  let watcher: ConfigWatcher | undefined
  if (guard && options.configFile) {
    const [{ watchConfig }, { pluginCodeFiles }] = await Promise.all([import('../../reload/watch.js'), import('../../reload/code/code-files.js')])
    const file = options.configFile
    const watched = () => [resolve(file), ...pluginCodeFiles(kernel, file)]
    guard.watch(watched())
    watcher = watchConfig(file, async () => {
      try {
        const outcome = await guard.reload(async () => {
          try {
            return await mcp.reload()
          } finally {
            // Why while new calls are still held: the next call's window must compare the code now loaded
            guard.watch(watched())
          }
        })
        if ('refused' in outcome) {
          log(`dsh mcp: reload of ${file} refused: ${outcome.refused.message}`)
          await mcp.refuseReload(outcome.refused)
          return
        }
        const summary = outcome.applied
        const changed = summary.added.length + summary.removed.length + summary.changed.length
        if (changed) log(`dsh mcp: reloaded ${file} (added ${summary.added.length}, removed ${summary.removed.length}, changed ${summary.changed.length})`)
      } catch (error) {
        log(`dsh mcp: reload of ${file} failed; the previous plugin set stays: ${describeError(error)}`)
      }
    }, { onError: (error) => log(`dsh mcp: watching ${file}: ${describeError(error)}`), codeFiles: () => pluginCodeFiles(kernel, file) })
  }

  let reason = 'the server failed to start'
  let stopping: number | undefined
  try {
    if (!early) await mcp.connect(transport)
    reason = await stop.ended
    stopping = performance.now()
    log(`dsh mcp: shutting down (${reason})`)
  } finally {
    stopping ??= performance.now()
    watcher?.close()
    // the calls cancelled and recorded, the session ended: its log is closed here
    await mcp.close(reason).catch((error) => log(`dsh mcp: closing: ${describeError(error)}`))
    const disposing = kernel.dispose().catch((error) => log(`dsh mcp: disposing the kernel: ${describeError(error)}`))
    const left = Math.max(DISPOSE_FLOOR_MS, stopping + SHUTDOWN_BUDGET_MS - performance.now())
    if (!(await settleWithin(disposing, left))) log(`dsh mcp: the plugins' dispose had not ended ${SHUTDOWN_BUDGET_MS} ms into the shutdown (the session log is closed); exiting without waiting for it`)
    // nothing dsh started outlives it: what a plugin's dispose did not stop (yet) is killed
    const killed = killChildren()
    if (killed.length) log(`dsh mcp: killed ${killed.length} child process(es) still running at exit (pid ${killed.join(', ')})`)
    stop.off()
    // the log is closed with the kernel: only then may another server take the session
    lock.release()
    report.flush()
    // after the kernel: the spans of the calls cancelled at shutdown are exported too, within the flush's bound
    await tracing?.shutdown(limits.otelFlushTimeoutMs).catch((error) => log(`dsh mcp: flushing traces: ${describeError(error)}`))
    stdout.release()
  }
  return 0
}

/**
 * After the kernel is up: the snapshot for the next start, written when it differs from the one
 * this start used; instructions sent from a stale one are said (the client cannot be told again).
 */
function keepFirstAnswer(file: string, early: FirstAnswer | undefined, mcp: DshMcpServer, limits: McpLimits): void {
  setImmediate(() => {
    mcp.firstAnswer().then((now) => {
      const answer = { ...now, limits }
      if (early && sameAnswer(early, answer)) return
      if (early && early.instructions !== answer.instructions) log('dsh mcp: the instructions sent at initialize came from the start-up snapshot and have changed since; the next start sends the new ones')
      const error = writeFirstAnswer(file, answer)
      if (error) log(`dsh mcp: the start-up snapshot could not be written (${file}): ${describeError(error)}`)
    }, () => {})
  })
}
