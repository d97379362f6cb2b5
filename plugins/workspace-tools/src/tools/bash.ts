/**
 * bash {command, timeout?, description?}: `sh -c command`, confined by
 * `ctx.sandbox.confine` in the mode that applies to the call, run with
 * the sandbox's process runner (its own process group, a fixed environment,
 * no stdin, capped output). The call's signal and the deadline kill the whole group
 * (SIGTERM, then SIGKILL after a grace period long enough for landlock-run
 * to reap what the command started). A non-zero exit is a normal result
 * that reports the code, as in Claude Code; a sandbox that cannot start is
 * an error, and the deadline ends the call `TIMEOUT`, naming the limit.
 */
import { realpathSync } from 'node:fs'
import { KernelError } from '@dsh/kernel'
import type { Context } from 'cordis'
import { sandboxEnv, startProcess, type Confined, type ProxyConnection } from '@dsh/sandbox'
import type { ToolCall, ToolDefinition } from '@dsh/tools'
import { MAX_BASH_TIMEOUT_MS, type Config } from '../config.js'
import { sandboxHint } from './bash-hints.js'
import { NOTES_SCHEMA, withNotes } from './notes.js'
import { describeOutput } from './progress.js'

/** longer than landlock-run's own 1 s grace, so it can still reap the command's descendants */
const KILL_GRACE_MS = 2000
/** after SIGKILL, how long the output pipes may stay open */
const PIPE_GRACE_MS = 250
const LAUNCHER_ERROR = 125
/** refused connections kept for the hint line (a command may try thousands; the session log has them all) */
const MAX_REFUSED_KEPT = 16

interface Args {
  command: string
  timeout?: number
  description?: string
  sandbox_permissions?: 'use_default' | 'require_escalated'
  justification?: string
}

/** The real path of the workspace, as confine() resolves it (realpath(3)); a path that cannot be resolved as given, for confine() to refuse. */
function realOrAsGiven(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

function run(confined: Confined, cwd: string, timeoutMs: number, signal: AbortSignal, maxBytes: number, progress: ToolCall['progress']) {
  const proc = startProcess({
    // Why spawnEnv: the proxy credential reaches the launcher by its environment, never its argv
    argv: confined.argv, cwd, env: { ...sandboxEnv(cwd), ...confined.spawnEnv }, timeoutMs, signal, maxOutputBytes: maxBytes, killGraceMs: KILL_GRACE_MS, pipeGraceMs: PIPE_GRACE_MS,
    // Why: without a sandbox nothing else reaps what the command left behind
    reapOnExit: confined.backend === 'none',
    // the view's sandbox built ahead, when the service keeps one: only the command's exec is left to do
    slot: confined.slot,
  })
  // read by the host only when it sends an update
  progress(() => describeOutput(proc.stdout, proc.stderr))
  return proc.done
}

export function bashTool(ctx: Context, config: Config): ToolDefinition<Args & Record<string, any>> {
  const sandbox = ctx.sandbox
  // fixed for the service's life (read once: each read through the service's proxy costs a context)
  const defaults = sandbox.defaults
  return {
    name: 'bash',
    title: 'Run shell command',
    description: 'Run a shell command (sh -c) in the workspace, confined by the sandbox. Returns stdout, stderr and the exit code.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The command line' },
        timeout: { type: 'integer', minimum: 1, maximum: MAX_BASH_TIMEOUT_MS, description: `Deadline in milliseconds (default ${config.bashTimeoutMs}, at most ${MAX_BASH_TIMEOUT_MS})` },
        description: { type: 'string', description: 'What the command does, in a few words' },
        // Codex's names: a policy plugin (claude-code-permissions with preset on-request) turns this into an ask for workspace-write
        sandbox_permissions: { type: 'string', enum: ['use_default', 'require_escalated'], description: 'require_escalated asks the user to run this one command with workspace-write (where a policy offers it)' },
        justification: { type: 'string', description: 'Why the command needs require_escalated, shown to the user' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    // a command can do anything its sandbox mode allows; it reaches the outside world only when the network is on
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: defaults.network !== 'off' },
    outputSchema: {
      type: 'object',
      properties: {
        stdout: { type: 'string' },
        stderr: { type: 'string' },
        exitCode: { type: ['integer', 'null'], description: 'null when a signal ended the command' },
        restoredProtectedPaths: { type: 'array', items: { type: 'string' } },
        notes: NOTES_SCHEMA,
      },
      required: ['stdout', 'stderr', 'exitCode'],
      additionalProperties: false,
    },
    concurrency: 'exclusive',
    // whatever its caller asks for: Codex's escalation request needs workspace-write, anything else the session's mode
    requiredMode: (args) => (args.sandbox_permissions === 'require_escalated' ? 'workspace-write' : undefined),
    prompt: 'bash: commands run confined. In read-only mode nothing outside a private /tmp can be written; the network is off unless the host turned it on, or reaches only the hosts the host allowed, through a proxy (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are set; there is no DNS inside); protected paths (.git, .dsh, .claude, .codex, .mcp.json, shell start-up files such as .bashrc, .envrc, .vscode, .idea) stay read-only. The environment is fixed (PATH, HOME=workspace, LANG); there is no stdin. Use read, write and edit for files.',
    async execute(args, call) {
      // Why not areaFor: bash needs the mode and the workspace alone, and confine() resolves and
      // checks the whole policy itself (the read policy's paths, the protected names) — once
      const area = { mode: sandbox.resolveMode(call.session, call.approvedSandboxMode), workspace: realOrAsGiven(config.workspace ?? defaults.workspace) }
      // the call goes along so each connection through the network proxy is recorded for it (sandbox/network)
      const refused: ProxyConnection[] = []
      const observe = (connection: ProxyConnection) => {
        if (!connection.allowed && refused.length < MAX_REFUSED_KEPT) refused.push(connection)
      }
      // each exec the call's rules refused (the session log has them all as permission/decided)
      const refusedExecs: string[] = []
      const observeExec = ({ reason }: { reason: string }) => {
        if (refusedExecs.length < MAX_REFUSED_KEPT) refusedExecs.push(reason)
      }
      const confined = await sandbox.confine(['/bin/sh', '-c', args.command], { mode: area.mode, workspace: area.workspace, network: defaults.network }, { session: call.session, callId: call.callId, observe, observeExec })
      call.record({ sandbox: { backend: confined.backend, enforcement: confined.enforcement, unenforced: [...confined.unenforced], hidden: [...confined.hidden] } })
      let out: Awaited<ReturnType<typeof run>>
      let restored: string[] = []
      try {
        out = await run(confined, area.workspace, args.timeout ?? config.bashTimeoutMs, call.signal, config.maxOutputBytes, call.progress)
      } finally {
        // only now: nothing the command started runs any more
        restored = confined.cleanup()
      }
      // Why a durable event: what the command changed and the sandbox put back is part of the audit
      if (restored.length) await call.session.append('sandbox/restored', { callId: call.callId, paths: restored })
      if (call.signal.aborted) throw new Error('bash was aborted; its process group was killed')
      if (out.spawnError !== undefined) throw new Error(`bash: the command could not start: ${out.spawnError}`)
      const stdout = out.stdout.text()
      const stderr = out.stderr.text()
      const chomp = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t)
      const transcript = [chomp(stdout), stderr && `[stderr]\n${chomp(stderr)}`].filter(Boolean).join('\n')
      const hint = sandboxHint({ mode: area.mode, backend: confined.backend, network: defaults.network, stdout, stderr, refused })
      const noteLines = [
        ...(restored.length ? [`[sandbox: removed or restored protected paths the command changed: ${restored.join(', ')}]`] : []),
        ...refusedExecs.map((reason) => `[permissions: ${reason}]`),
        ...(hint ? [hint] : []),
      ]
      const notes = noteLines.map((line) => `\n${line}`).join('')
      if (out.termination?.reason === 'deadline') {
        const limit = args.timeout !== undefined ? `its timeout argument, ${args.timeout} ms` : `workspace-tools bashTimeoutMs, ${config.bashTimeoutMs} ms`
        throw new KernelError('TIMEOUT', `the command reached its deadline (${limit}): timed out after ${args.timeout ?? config.bashTimeoutMs} ms and was killed\n${transcript}${notes}`)
      }
      if (out.exitCode === LAUNCHER_ERROR && confined.backend !== 'none' && /^landlock-run: /m.test(stderr)) {
        throw new Error(`bash: the sandbox could not start the command: ${stderr.trim()}`)
      }
      const status = out.exitCode !== null ? `[exit code ${out.exitCode}]` : `[killed by ${out.signal}]`
      return {
        content: `${transcript ? `${transcript}\n` : ''}${status}${notes}`,
        value: withNotes({ stdout, stderr, exitCode: out.exitCode, ...(restored.length ? { restoredProtectedPaths: restored } : {}) }, noteLines),
      }
    },
  }
}
