/**
 * What makes each client use dsh's tools instead of its own (decisions/2026-12-02-client-setup.md):
 * the MCP server entry, the client's own tools switched off, and dsh's tools let through the
 * client's own permission check, so that dsh's approval and sandbox decide about them.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The server's name in both clients: Claude Code calls its tools `mcp__dsh__<tool>`. */
export const SERVER_NAME = 'dsh'

/**
 * Claude Code's built-in tools that reach the shell, the files or the web (as Claude Code
 * 2.1.332 names them: it warns about a rule naming a tool it lacks, such as `LS` or
 * `MultiEdit`): denied by name, so Claude Code removes them from the model's tool list.
 * `Monitor` runs a command in the background, `NotebookEdit` writes files.
 */
export const CLAUDE_BUILTINS: readonly string[] = Object.freeze(['Bash', 'Monitor', 'Read', 'Edit', 'Write', 'NotebookEdit', 'Glob', 'Grep', 'WebFetch', 'WebSearch'])

/** The allow rule for every tool of the server (Claude Code's server-wide rule). */
export const CLAUDE_ALLOW = `mcp__${SERVER_NAME}`

/** What Claude Code keeps: the tools that neither touch the host nor have a dsh counterpart. */
export const CLAUDE_KEPT = 'Agent (sub-agents: the same deny rules hold for them), Skill, ToolSearch, Workflow, the task, cron and worktree tools, and its MCP resource readers'

/** What Codex keeps. */
export const CODEX_KEPT = 'view_image (it reads an image file the model names, outside dsh), the MCP resource readers, request_user_input, the goal and sub-agent tools'

/** The command that starts dsh's MCP server: this node and this package's bin, by absolute path. */
export function serverCommand(): { command: string; args: string[] } {
  const bin = fileURLToPath(new URL('../../bin/dsh.cjs', import.meta.url))
  return { command: process.execPath, args: [bin, 'mcp'] }
}

/** Whether a configured server command can start (its program and, for node, its script exist). */
export function commandProblem(command: unknown, args: unknown): string | undefined {
  if (typeof command !== 'string' || command === '') return 'has no command'
  if (command.includes('/') && !existsSync(command)) return `runs ${command}, which does not exist`
  const first = Array.isArray(args) ? args[0] : undefined
  if (typeof first === 'string' && first.startsWith('/') && /\.c?js$/.test(first) && !existsSync(first)) return `runs ${first}, which does not exist`
  return undefined
}

/** Codex: the top-level keys and tables `dsh setup codex` sets, in order. */
export function codexSettings(): { table: string[]; key: string; value: string | boolean | string[] }[] {
  const { command, args } = serverCommand()
  return [
    // the hosted web search: dsh's web_fetch goes through the sandbox's network policy instead
    { table: [], key: 'web_search', value: 'disabled' },
    // the apply_patch editor writes files outside dsh (offered for models whose metadata asks for it)
    { table: [], key: 'include_apply_patch_tool', value: false },
    // the shell: the classic tool and the unified exec (exec_command, write_stdin)
    { table: ['features'], key: 'shell_tool', value: false },
    { table: ['features'], key: 'unified_exec', value: false },
    // the terminal UI's sessions in its own process, not in a daemon that outlives /quit and keeps dsh running
    { table: ['features'], key: 'daemon_auto_start', value: false },
    { table: ['mcp_servers', SERVER_NAME], key: 'command', value: command },
    { table: ['mcp_servers', SERVER_NAME], key: 'args', value: args },
    // the first turn waits for dsh's tools, and a dsh that cannot start stops the session (its shell is off)
    { table: ['mcp_servers', SERVER_NAME], key: 'required', value: true },
    // `codex exec` approves nothing itself: dsh's approval decides about its destructive tools
    { table: ['mcp_servers', SERVER_NAME], key: 'default_tools_approval_mode', value: 'approve' },
  ]
}
