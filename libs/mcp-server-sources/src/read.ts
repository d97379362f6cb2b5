/**
 * `readServerSources`: the servers of the sources asked for, in the order asked — on a name in
 * two sources the first source listed wins (decisions/2026-12-02-mcp-server-sources.md), and
 * within Claude Code a project's own server wins over the user's of the same name, as in Claude
 * Code. A server that cannot be used is a problem with its file and line and the rest are used:
 * nothing here throws for what a file holds. The server named `dsh` (dsh itself, as `dsh setup`
 * writes it) is never an upstream.
 */
import { isDeepStrictEqual } from 'node:util'
import { EntryProblem } from './check.js'
import { claudeServerConfig } from './claude-entry.js'
import { UnsetVariable } from './claude-expand.js'
import { codexServerConfig } from './codex-entry.js'
import { sourceFiles } from './files.js'
import { SOURCE_READERS } from './sources.js'
import { DSH_SERVER_NAME, type ReadSourcesOptions, type ServerConfig, type SourceName, type SourceProblem, type SourceServers } from './types.js'

export const SOURCE_NAMES: readonly SourceName[] = Object.freeze(['mcp.json', 'claude-code', 'codex'])

export async function readServerSources(sources: SourceName[], options: ReadSourcesOptions): Promise<SourceServers> {
  const env = options.env ?? process.env
  const files = sourceFiles(options)
  // names come from files anyone may have written: no prototype to collide with
  const servers: SourceServers['servers'] = Object.create(null)
  const problems: SourceProblem[] = []
  const seen = new Set<SourceName>()
  for (const source of sources) {
    if (!Object.hasOwn(SOURCE_READERS, source)) {
      problems.push({ source, file: '', message: `${JSON.stringify(source)} is not a source (sources: ${SOURCE_NAMES.join(', ')})` })
      continue
    }
    if (seen.has(source)) continue
    seen.add(source)
    for (const raw of SOURCE_READERS[source](files, problems)) {
      if (raw.name === DSH_SERVER_NAME) continue
      const where = { source, file: raw.file, server: raw.name, ...(raw.line !== undefined ? { line: raw.line } : {}) }
      let config: ServerConfig | undefined
      try {
        config = source === 'codex' ? codexServerConfig(raw.entry, env) : claudeServerConfig(raw.entry, env)
      } catch (error) {
        if (!(error instanceof EntryProblem) && !(error instanceof UnsetVariable)) throw error
        problems.push({ ...where, message: `server ${JSON.stringify(raw.name)} ${error instanceof UnsetVariable ? error.message : error.message}; it is left out` })
        continue
      }
      if (config === undefined) continue
      const earlier = Object.hasOwn(servers, raw.name) ? servers[raw.name] : undefined
      if (earlier) {
        if (!isDeepStrictEqual({ ...earlier.config }, { ...config })) problems.push({ ...where, message: `server ${JSON.stringify(raw.name)} is also in ${earlier.file} (${earlier.source}), whose entry is used; this one differs from it and is left out` })
        continue
      }
      servers[raw.name] = { config, source, file: raw.file }
    }
  }
  return { servers, problems }
}
