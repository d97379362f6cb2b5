/**
 * Servers from the clients' own files (`sources`), read by
 * `@dsh/mcp-server-sources` — loaded only when a config asks for a source,
 * so a config without `sources` never needs it. Servers named in `servers`
 * take precedence over any source; what a source got wrong is reported with
 * its file and line, and the rest is used.
 */
import { KernelError, describeError } from '@dsh/kernel'
import type { ServerConfig, SourceName } from './config.js'

export interface SourceProblem { source: SourceName; file: string; server?: string; line?: number; message: string }
export interface ReadSourcesOptions { cwd: string; home?: string; env?: Record<string, string | undefined> }
export interface SourceServers {
  servers: Record<string, { config: ServerConfig; source: SourceName; file: string }>
  problems: SourceProblem[]
}
type Reader = (sources: SourceName[], options: ReadSourcesOptions) => Promise<SourceServers>

const SOURCES_PACKAGE = '@dsh/mcp-server-sources'

async function reader(): Promise<Reader> {
  let module: { readServerSources?: Reader }
  try {
    // Why a variable: the package is optional for configs without sources
    const specifier: string = SOURCES_PACKAGE
    module = await import(specifier)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `mcp-servers: sources needs ${SOURCES_PACKAGE}, which could not be loaded (${describeError(error)}); install it or remove sources`, { cause: error })
  }
  if (typeof module.readServerSources !== 'function') throw new KernelError('INVALID_CONFIG', `mcp-servers: ${SOURCES_PACKAGE} has no readServerSources`)
  return module.readServerSources
}

export async function readSources(sources: SourceName[], options: ReadSourcesOptions): Promise<SourceServers> {
  if (!sources.length) return { servers: {}, problems: [] }
  return (await reader())(sources, options)
}

export function describeProblem(p: SourceProblem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''} (${p.source}${p.server ? `, server ${p.server}` : ''}): ${p.message}`
}
