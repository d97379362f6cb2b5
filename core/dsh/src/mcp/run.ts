/**
 * `dsh mcp` as a process: the kernel from a config file, the server on
 * stdin/stdout, `--watch` reloading on file change, and a clean shutdown when
 * stdin ends, the client goes away or SIGTERM/SIGINT arrives. Nothing but the
 * protocol is written to stdout; diagnostics go to stderr.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describeError } from '@dsh/kernel'
import { raw } from '@dsh/kernel/internals'
import { commandOptions, configNotice } from '../default-set.js'
import { createKernel, type Kernel } from '../kernel.js'
import type { Tracing } from '../otel/tracing.js'
import { mcpLimits } from './limits.js'
import { rateLimitedLog } from './rate-limited-log.js'
import { loadPlugin } from '../load-plugin.js'
import { importPlugin } from '../plugins.js'
import { lockSession, type SessionLock } from '../sessions/lock.js'
import { claimStdout } from './stdout-guard.js'
import { watchConfig, type ConfigWatcher } from './watch.js'
import { ReloadGuard } from './reload-guard.js'
import { pluginCodeFiles } from '../code-reload/code-files.js'

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

const log = (line: string) => {
  process.stderr.write(`${line}\n`)
}

/** Serve until the connection ends; resolves with the exit code. */
export async function runMcpServer(options: RunMcpOptions): Promise<number> {
  // claimed before any plugin loads: a plugin's console.log at start would corrupt the first message
  const stdout = claimStdout()
  // Why started here and awaited later: the SDK (zod's schemas) loads while the kernel starts, and
  // its evaluation fills the time the kernel waits for the sandbox probe's process
  const protocol = Promise.all([import('./server.js'), import('./stdio-transport.js')])
  protocol.catch(() => {})
  let kernel: Kernel
  let modules: Awaited<typeof protocol>
  let tracing: Tracing | undefined
  try {
    // the SDK only with --otel: its packages are not even loaded otherwise
    if (options.otel) tracing = (await import('../otel/tracing.js')).startTracing()
    log(configNotice('mcp', options.configFile && resolve(options.configFile)))
    kernel = await createKernel(commandOptions(options.configFile), { probeSandbox: true })
  } catch (error) {
    await tracing?.shutdown().catch(() => {})
    stdout.release()
    log(`dsh mcp: ${options.otel && !tracing ? '--otel: ' : ''}${describeError(error)}`)
    return 2
  }
  try {
    modules = await protocol
  } catch (error) {
    await kernel.dispose().catch(() => {})
    await tracing?.shutdown().catch(() => {})
    stdout.release()
    log(`dsh mcp: the MCP server cannot be loaded: ${describeError(error)}`)
    return 2
  }
  if (tracing) {
    log(`dsh mcp: ${tracing.summary}`)
    try {
      await plugOtel(kernel)
    } catch (error) {
      await kernel.dispose().catch(() => {})
      await tracing.shutdown().catch(() => {})
      stdout.release()
      log(`dsh mcp: --otel: ${describeError(error)}`)
      return 2
    }
  }

  const sessionId = options.resume ?? `mcp-${randomUUID()}`
  const sessionsDir = raw(kernel.ctx.sessions).dir
  const logPath = join(sessionsDir, `${sessionId}.jsonl`)
  const refuse = async (message: string): Promise<number> => {
    await kernel.dispose().catch(() => {})
    await tracing?.shutdown().catch(() => {})
    stdout.release()
    log(`dsh mcp: --session: ${message}`)
    return 2
  }
  if (options.resume !== undefined && !existsSync(logPath)) return refuse(`no session ${JSON.stringify(options.resume)} (${logPath} does not exist)`)
  // one server per session: a second one resuming it would interleave its appends with ours
  let lock: SessionLock
  try {
    mkdirSync(sessionsDir, { recursive: true, mode: 0o700 })
    lock = lockSession(sessionId, logPath)
  } catch (error) {
    return refuse(describeError(error))
  }
  const [{ createMcpServer }, { DshStdioTransport }] = modules
  const limits = mcpLimits(kernel.options.mcp)
  // a client can send malformed messages as fast as it likes: what is said about them is rate-limited
  const report = rateLimitedLog((line) => log(`dsh mcp: ${line}`), { what: 'refused messages' })
  const transport = new DshStdioTransport(process.stdin, stdout.stream, { ...limits, buffered: stdout.buffered, report })
  transport.onerror = (error) => log(`dsh mcp: ${describeError(error)}`)
  // Why only with --watch: without it nothing is reloaded while the server runs, and no call pays the stats
  const guard = options.watch && options.configFile ? new ReloadGuard() : undefined
  const mcp = createMcpServer(kernel, {
    log, sessionId, calls: guard, maxConcurrentCalls: limits.maxConcurrentCalls, shutdownGraceMs: SHUTDOWN_GRACE_MS,
    admit: (signal) => transport.admit(signal), afterAnswer: (id, done) => transport.afterAnswer(id, done),
  })
  let watcher: ConfigWatcher | undefined
  if (guard && options.configFile) {
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

  let finish!: (reason: string) => void
  const ended = new Promise<string>((resolve) => (finish = resolve))
  const onStdinEnd = () => finish('stdin closed')
  const onTerm = () => finish('SIGTERM')
  const onInt = () => finish('SIGINT')
  // the client went away: writing to a closed pipe fails with EPIPE
  const onStdoutError = (error: Error) => finish(`stdout failed: ${describeError(error)}`)
  process.stdin.once('end', onStdinEnd)
  process.stdin.once('close', onStdinEnd)
  process.once('SIGTERM', onTerm)
  process.once('SIGINT', onInt)
  process.stdout.on('error', onStdoutError)

  let reason = 'the server failed to start'
  try {
    await mcp.connect(transport)
    reason = await ended
    log(`dsh mcp: shutting down (${reason})`)
  } finally {
    watcher?.close()
    await mcp.close(reason).catch((error) => log(`dsh mcp: closing: ${describeError(error)}`))
    await kernel.dispose().catch((error) => log(`dsh mcp: disposing the kernel: ${describeError(error)}`))
    process.stdin.off('end', onStdinEnd)
    process.stdin.off('close', onStdinEnd)
    process.off('SIGTERM', onTerm)
    process.off('SIGINT', onInt)
    process.stdout.off('error', onStdoutError)
    // the log is closed with the kernel: only then may another server take the session
    lock.release()
    report.flush()
    // after the kernel: the spans of the calls cancelled at shutdown are exported too, within the flush's bound
    await tracing?.shutdown(limits.otelFlushTimeoutMs).catch((error) => log(`dsh mcp: flushing traces: ${describeError(error)}`))
    stdout.release()
  }
  return 0
}

/** The bundled otel plugin on the kernel, with its defaults — unless the config loads it already. */
async function plugOtel(kernel: Kernel): Promise<void> {
  if (kernel.plugins().some((p) => p.plugin?.name === 'otel')) return
  const plugin = await importPlugin('otel', dirname(fileURLToPath(import.meta.url)))
  await loadPlugin(kernel.ctx, plugin)
}
