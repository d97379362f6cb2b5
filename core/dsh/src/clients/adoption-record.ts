/**
 * What `dsh setup --adopt-mcp-servers` keeps to put the servers back (`--restore`): each file's
 * text before and after the adoption, and each server's entry as the client had it. Kept outside
 * the project, in the user's state directory ($XDG_STATE_HOME/dsh, ~/.local/state/dsh): the
 * workspace is writable to confined commands, and a record they could change would let them
 * write a server command into the client's own config, which runs unconfined
 * (decisions/2026-12-02-mcp-server-sources.md).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { ConfigFileError, writeAll } from './config-file.js'
import type { JsonPath } from './json-edit.js'

export type AdoptClient = 'claude-code' | 'codex'

export interface AdoptedServer {
  name: string
  /** the client file it was in */
  file: string
  /** JSON path of the entry (Claude Code) or the table (Codex) */
  path: JsonPath
  entry: unknown
}

export interface Adoption {
  client: AdoptClient
  scope?: string
  files: { path: string; before: string | undefined; after: string }[]
  servers: AdoptedServer[]
}

export interface AdoptionRecord {
  project: string
  adoptions: Adoption[]
}

export function recordPath(project: string, env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const state = env.XDG_STATE_HOME ? resolve(env.XDG_STATE_HOME) : join(resolve(home), '.local', 'state')
  const id = createHash('sha256').update(resolve(project)).digest('hex').slice(0, 16)
  return join(state, 'dsh', 'adopted-mcp-servers', `${id}.json`)
}

export function readRecord(file: string, project: string): AdoptionRecord {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { project, adoptions: [] }
    throw new ConfigFileError(`${file}: cannot be read: ${(error as Error).message}`)
  }
  try {
    const record = JSON.parse(text) as AdoptionRecord
    if (record.project !== project || !Array.isArray(record.adoptions)) throw new Error('not a record of this project')
    return record
  } catch (error) {
    throw new ConfigFileError(`${file}: not a record of adopted servers (${(error as Error).message}); move it away to start afresh`)
  }
}

export function writeRecord(file: string, before: string | undefined, record: AdoptionRecord): void {
  if (record.adoptions.length === 0) {
    rmSync(file, { force: true })
    return
  }
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 })
  writeAll([{ path: file, before, after: `${JSON.stringify(record, null, 2)}\n`, newMode: 0o600 }])
}
