/**
 * `dsh doctor`'s hint (not a problem: the exit code does not change): MCP servers the client
 * still starts itself, unconfined and outside dsh's rules, hooks and session log, which
 * `dsh setup <client> --adopt-mcp-servers` would move behind dsh.
 */
import { readServerSources, type SourceName } from '@dsh/mcp-server-sources'
import { claudeFiles, type ClaudeLocation } from './claude-code-files.js'

export async function adoptHints(client: 'claude-code' | 'codex', location: ClaudeLocation = {}): Promise<string[]> {
  const project = claudeFiles(location).project
  const sources: SourceName[] = client === 'codex' ? ['codex'] : ['claude-code', 'mcp.json']
  const { servers, problems } = await readServerSources(sources, { cwd: project, ...(location.home ? { home: location.home } : {}), env: location.env ?? process.env })
  const byFile = new Map<string, Set<string>>()
  const add = (file: string, name: string) => byFile.set(file, (byFile.get(file) ?? new Set()).add(name))
  for (const [name, { file }] of Object.entries(servers)) add(file, name)
  for (const p of problems) if (p.server) add(p.file, p.server)
  if (byFile.size === 0) return []
  const where = [...byFile].map(([file, names]) => `${[...names].join(', ')} in ${file}`).join('; ')
  const scope = client === 'codex' ? '' : ' (--scope user, local or project: the scope whose servers to move)'
  return [`the client starts MCP servers itself, unconfined and past dsh's rules, hooks and session log: ${where}. dsh setup ${client} --adopt-mcp-servers${scope} moves them into dsh.yml, where dsh runs them confined; --restore puts them back`]
}
