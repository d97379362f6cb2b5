/**
 * What the OpenTelemetry SDK says, said short: one line per export failure or
 * diagnostic (its first line, at most `LINE_LIMIT` characters, never a JSON
 * stack), through a rate-limited writer; and a shutdown that gives up after
 * its bound instead of waiting out the exporter's retries (7.5–10 s with a
 * collector that is down, longer than an MCP client waits before it kills the
 * server, so the spans were lost anyway and the exit late).
 */
import type { DiagLogger } from '@opentelemetry/api'

const LINE_LIMIT = 200

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim()
  return line.length > LINE_LIMIT ? `${line.slice(0, LINE_LIMIT)}…` : line
}

function describe(value: unknown): string {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code
    const message = firstLine(value.message || value.name)
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message
  }
  if (typeof value === 'string') {
    // the SDK's own handler hands errors on as JSON of their properties: the message is what matters
    if (value.startsWith('{')) {
      try {
        const parsed = JSON.parse(value) as { message?: unknown; code?: unknown }
        if (typeof parsed.message === 'string') return describe(Object.assign(new Error(parsed.message), { code: parsed.code }))
      } catch {}
    }
    return firstLine(value)
  }
  try {
    return firstLine(JSON.stringify(value) ?? String(value))
  } catch {
    return firstLine(String(value))
  }
}

/** The line an export failure is reported with. */
export function exportFailureLine(error: unknown): string {
  return `export failed: ${describe(error)}`
}

/** A diag logger writing one short line per message. */
export function shortDiagLogger(write: (line: string) => void): DiagLogger {
  const at = (level: string) => (message: string, ...args: unknown[]) => {
    const cause = args.find((arg) => arg instanceof Error)
    write(`${level}: ${describe(message)}${cause ? `: ${describe(cause)}` : ''}`)
  }
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), verbose: at('verbose') }
}

/**
 * Run `shutdown` for at most `timeoutMs`. Past the bound the export still in
 * flight is left to the process's exit (the SDK has no way to cancel one);
 * `dsh mcp` exits right after, so nothing is left running for long.
 */
export async function boundedShutdown(shutdown: () => Promise<void>, timeoutMs: number, write: (line: string) => void): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'late')
    timer.unref?.()
  })
  try {
    const outcome = await Promise.race([shutdown().then(() => 'done' as const, (error) => {
      write(exportFailureLine(error))
      return 'failed' as const
    }), late])
    if (outcome === 'late') write(`the last spans were not exported within ${timeoutMs} ms (mcp.otelFlushTimeoutMs) and are dropped`)
  } finally {
    clearTimeout(timer)
  }
}
