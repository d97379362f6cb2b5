/**
 * Servers from the clients' own files (`sources`), read by
 * `@dsh/mcp-server-sources` — imported only when a config asks for a source.
 * A server named in `servers` takes precedence over any source's; what a
 * source got wrong (and a sourced server dsh cannot take: a name that cannot
 * be part of a tool name, a sandbox mode that is none) is reported with its
 * file and line, and the rest is used — a file anyone may have written never
 * stops the kernel.
 */
import type { SourceProblem, SourceServers } from '@dsh/mcp-server-sources'
import { SANDBOX_MODES } from '@dsh/sandbox'
import { isHttp, type ServerConfig, type SourceName } from './config.js'
import { serverNameProblem } from './names.js'

export interface Sourced {
  servers: Map<string, ServerConfig>
  problems: string[]
}

export function describeProblem(p: SourceProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''} (${p.source}${p.server ? `, server ${p.server}` : ''}): ${p.message}`
}

/** Why dsh cannot take a sourced server, or undefined. */
function unusable(name: string, config: SourceServers['servers'][string]['config']): string | undefined {
  const named = serverNameProblem(name)
  if (named) return named
  const mode = isHttp(config as ServerConfig) ? undefined : (config as { sandbox?: { mode?: string } }).sandbox?.mode
  if (mode !== undefined && !(SANDBOX_MODES as readonly string[]).includes(mode)) return `sandbox.mode ${JSON.stringify(mode)} is not one of ${SANDBOX_MODES.join(', ')}`
  return undefined
}

export async function readSources(sources: SourceName[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<Sourced> {
  const servers = new Map<string, ServerConfig>()
  if (!sources.length) return { servers, problems: [] }
  const { readServerSources } = await import('@dsh/mcp-server-sources')
  const read = await readServerSources(sources, options)
  const problems = read.problems.map(describeProblem)
  for (const [name, found] of Object.entries(read.servers)) {
    const why = unusable(name, found.config)
    if (why) problems.push(`${found.file} (${found.source}, server ${name}): skipped: ${why}`)
    else servers.set(name, found.config as ServerConfig)
  }
  return { servers, problems }
}
