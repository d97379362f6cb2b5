/**
 * The table of `dsh` commands, each module loaded when its command runs.
 */
import type { Command } from './command.js'

/** A command whose module (and its dependencies: the kernel, the MCP SDK) loads only when it runs. */
function lazy(summary: string, load: () => Promise<Command>): Command {
  return { summary, run: async (args) => (await load()).run(args) }
}

export const commands: Record<string, Command> = {
  demo: lazy('run a scripted session through the pipeline and print its audit timeline', async () => (await import('./demo-command.js')).demoCommand),
  doctor: lazy('check Claude Code\'s or Codex\'s configuration for dsh: each problem with its fix (exit 1), a missing client (exit 2)', async () => (await import('./doctor-command.js')).doctorCommand),
  exec: lazy('run one tool call through the full pipeline and print the result and its audit trail', async () => (await import('./exec-command.js')).execCommand),
  init: lazy('write ./dsh.yml: the built-in default set, every key commented (--force overwrites)', async () => (await import('./init-command.js')).initCommand),
  inspect: lazy('print the registry: tools, listeners, guards, prompt, sandbox, approval, plugins', async () => (await import('./inspect-command.js')).inspectCommand),
  mcp: lazy('serve the tools to an MCP client over stdio (--config, --watch)', async () => (await import('./mcp-command.js')).mcpCommand),
  'new-plugin': lazy('scaffold a plugin package in <dir>: plugin, test on dsh/testing, dsh.yml, README', async () => (await import('./new-plugin-command.js')).newPluginCommand),
  permissions: lazy('print what the permission rules decide for a call, without running it', async () => (await import('./permissions-command.js')).permissionsCommand),
  sandbox: lazy('list or clear the protected entries the sandbox could not put back (unrestored, clear <path>)', async () => (await import('./sandbox-command.js')).sandboxCommand),
  sessions: lazy('list, show or prune the session logs (list, show <id>, prune --older-than 7d)', async () => (await import('./sessions-command.js')).sessionsCommand),
  setup: lazy('make Claude Code or Codex use dsh\'s tools instead of their own (claude-code|codex, --scope, --dry-run)', async () => (await import('./setup-command.js')).setupCommand),
}

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length))
  const list = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`).join('\n')
  return `Usage: dsh <command> [options]
       dsh --version

Commands:
${list}

Run \`dsh <command> --help\` for a command's options. Without --config, mcp,
exec and inspect read ./dsh.yml, or else run the built-in default set
(\`dsh init\` writes it to a file); each says on stderr which.

Exit codes: 0 success; 1 a tool call ended in an error result; 2 bad usage or configuration.`
}
