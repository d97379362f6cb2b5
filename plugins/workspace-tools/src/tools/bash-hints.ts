/**
 * The line bash appends to a result whose command ran into the sandbox: a
 * write refused with "Read-only file system" (EROFS), or a connection the
 * network policy refused — what happened and the setting that allows it,
 * as the file tools' denials say. The command's own output is left as it is;
 * the line follows it, like the note about restored protected paths.
 *
 * Refused connections are known exactly when the network lists hosts (the
 * proxy recorded them for the call); with the network off the command never
 * reaches dsh, so its output is read for what resolvers and clients print
 * then. Nothing is added under danger-full-access, where nothing refused it.
 */
import { networkOffRemedy, type NetworkPolicy, type ProxyConnection, type SandboxMode } from '@dsh/sandbox'

// what libc prints for EROFS, in every tool's message; plain Landlock refuses a write with EACCES instead
const EROFS = 'Read-only file system'
const EACCES = 'Permission denied'
// what a command prints when it finds no network (no DNS inside, no route out): looked for as plain
// substrings (a scan of the capped output costs microseconds), then the host read where one is named
const NO_NETWORK = ['Could not resolve host', 'getaddrinfo', 'Temporary failure in name resolution', 'Name or service not known', 'Network is unreachable', 'No address associated with hostname']
const NAMED_HOST = /Could not resolve host: ([^\s'"]+)|getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([^\s'"]+)/
/** refused hosts named in the line (the rest are counted) */
const MAX_NAMED = 3

export interface HintFacts {
  mode: SandboxMode
  /** the backend that confined the command (plain Landlock's refusals read "Permission denied") */
  backend: string
  network: NetworkPolicy
  stdout: string
  stderr: string
  /** the connections the proxy refused for this call */
  refused: readonly ProxyConnection[]
}

function erofsHint(mode: SandboxMode, landlock: boolean): string {
  const fails = landlock ? 'fail with "Read-only file system" or, under Landlock, "Permission denied"' : 'fail with "Read-only file system"'
  return mode === 'read-only'
    ? `the sandbox mode is read-only, so the command's writes ${fails}. To allow them: run the session in workspace-write (sandbox.mode in dsh.yml, or a sandbox/mode event), or ask for this one command with sandbox_permissions "require_escalated" where a policy offers it (claude-code-permissions) and approve it`
    : `under workspace-write only the workspace is writable (protected paths such as .git, .dsh, .claude and shell start-up files stay read-only), so writes elsewhere ${fails}. A protected path is changed by a person outside dsh; files meant for the command belong in the workspace`
}

function refusedHint(refused: readonly ProxyConnection[]): string {
  const distinct = new Map<string, ProxyConnection>()
  for (const connection of refused) if (!distinct.has(connection.host)) distinct.set(connection.host, connection)
  const named = [...distinct.values()].slice(0, MAX_NAMED)
  const parts = named.map(({ host, port, reason, remedy }) => `${host || 'a client'}${port ? `:${port}` : ''} (${reason ?? 'refused'})${remedy ? `. ${remedy}` : ''}`)
  const more = distinct.size > named.length ? `; and ${distinct.size - named.length} more host(s), in the session log as sandbox/network` : ''
  return `the network proxy refused ${parts.join('; ')}${more}`
}

function offHint(output: string): string {
  const match = NAMED_HOST.exec(output)
  const host = match?.[1] ?? match?.[2]
  return `the sandbox's network is off for commands (sandbox.network "off"), so connections fail. ${networkOffRemedy(host ?? 'example.com')}`
}

/** The note to add to the result, or undefined when the output shows nothing the sandbox did. */
export function sandboxHint(facts: HintFacts): string | undefined {
  if (facts.mode === 'danger-full-access') return undefined
  const lines: string[] = []
  const landlock = facts.backend === 'landlock'
  const refusedWrite = (t: string) => t.includes(EROFS) || (landlock && t.includes(EACCES))
  if (refusedWrite(facts.stderr) || refusedWrite(facts.stdout)) lines.push(erofsHint(facts.mode, landlock))
  if (facts.refused.length) lines.push(refusedHint(facts.refused))
  else if (facts.network === 'off') {
    const output = [facts.stderr, facts.stdout].find((text) => NO_NETWORK.some((mark) => text.includes(mark)))
    if (output !== undefined) lines.push(offHint(output))
  }
  return lines.length ? `[sandbox: ${lines.join('; and ')}]` : undefined
}
