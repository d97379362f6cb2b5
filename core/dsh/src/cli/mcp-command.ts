/**
 * `dsh mcp [--config dsh.yml] [--watch]`.
 */
import { existsSync } from 'node:fs'
import { SESSION_ID } from '../sessions/store.js'
import type { Command } from './command.js'
import { defineCommand } from './flags.js'

const HELP = `Usage: dsh mcp [--config <dsh.yml>] [--watch] [--otel] [--session <id>]

Serves the kernel's tools to an MCP client over stdio: tools/list is the
tool set the model is sent (in code mode only run_code), tools/call runs the
full pipeline in one session per connection, and approvals are asked through
MCP elicitation when the client supports it (otherwise they are refused).
stdout carries only the protocol; diagnostics go to stderr.

Options:
  -c, --config <file>  the dsh.yml to load (default ./dsh.yml when it exists,
                       otherwise the built-in default set: workspace-tools on
                       the current directory, timeout-policy, spill-policy,
                       repeat-tool-reminder, hooks-claude-code,
                       claude-code-permissions (preset on-request); sandbox
                       read-only, approval ask; dsh init writes it to a file)
  -w, --watch          reload when the config file changes and send
                       notifications/tools/list_changed; a config that fails
                       to load leaves the previous plugin set running
      --otel           trace every call with OpenTelemetry: load the otel plugin
                       and export its spans over OTLP/HTTP, configured by the
                       standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT,
                       OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER, ...)
  -s, --session <id>   resume the session <id> (dsh sessions list shows them):
                       its events are recovered, its session grants still
                       answer (revoked ones do not), and new calls are
                       appended to its log; a session another running
                       dsh mcp (or dsh exec) holds is refused, naming the
                       holder's pid
  -h, --help           show this help

A start like an earlier one (same dsh, node, directory and config file)
answers initialize and tools/list from that start's snapshot in
$XDG_CACHE_HOME/dsh/first-answer (~/.cache/dsh/first-answer) while its plugins
load; every tool call waits until they have. Not with --watch, --otel or
--session.

Limits (the mcp section of dsh.yml, docs/configuration.md): maxMessageBytes
(10 MiB; a larger message is refused with a JSON-RPC error), maxConcurrentCalls
(16), maxBytesInFlight (32 MiB; over it stdin is read no further until the
client reads its answers), otelFlushTimeoutMs (1000).

Exit codes: 0 after a clean shutdown (stdin closed, SIGTERM or SIGINT);
2 bad usage, a configuration that cannot be loaded, or (with --otel) an
OTEL_* value that cannot be honoured, or no session <id>, or one in use.
`

/**
 * After shutdown, what is still written to stdout and stderr gets this long to leave; then the process
 * exits. Short: a client that stopped us and does not read must not hold the exit (DESIGN §16.1: 100 ms).
 */
const EXIT_FLUSH_MS = 50

/** Resolves once every stream has flushed what it holds, or after `ms`. */
function flushed(streams: NodeJS.WritableStream[], ms: number): Promise<void> {
  const deadline = Date.now() + ms
  return new Promise((resolve) => {
    const check = () => {
      if (Date.now() >= deadline || streams.every((s) => !(s as { writableLength?: number }).writableLength)) resolve()
      else setTimeout(check, 5)
    }
    check()
  })
}

export const mcpCommand: Command = defineCommand({
  name: 'mcp',
  summary: 'serve the tools to an MCP client over stdio (--config, --watch)',
  help: HELP,
  flags: { config: { type: 'string', short: 'c' }, watch: { type: 'boolean', short: 'w' }, otel: { type: 'boolean' }, session: { type: 'string', short: 's' } },
  positionals: false,
  // a flag mistake prints parseArgs' message and the whole help, on stderr
  mistake: (error) => {
    process.stderr.write(`dsh mcp: ${(error as Error).message}\n\n${HELP}`)
    return 2
  },
  async run(values) {
    const configFile = values.config ?? (existsSync('dsh.yml') ? 'dsh.yml' : undefined)
    if (values.watch && !configFile) {
      process.stderr.write('dsh mcp: --watch needs a config file (--config <dsh.yml>, or ./dsh.yml)\n')
      return 2
    }
    if (values.session !== undefined && !SESSION_ID.test(values.session)) {
      process.stderr.write(`dsh mcp: --session: ${JSON.stringify(values.session)} is not a session id (letters, digits, ".", "_" and "-")\n`)
      return 2
    }
    // loaded only now: --help and usage errors need none of the kernel
    const { runMcpServer } = await import('./mcp/run.js')
    const code = await runMcpServer({ configFile, watch: values.watch, otel: values.otel, resume: values.session })
    // the session log is closed: nothing left may hold the process — a tool body that ignored its
    // cancellation, an export to a collector that hangs, a pool's idle sandbox (DESIGN §16.1: 100 ms)
    await flushed([process.stdout, process.stderr], EXIT_FLUSH_MS)
    process.exit(code)
  },
})
