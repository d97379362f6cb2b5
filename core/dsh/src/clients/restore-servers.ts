/**
 * `dsh setup <client> --restore`: the adopted servers back where they were, the last adoption
 * first. A file nobody changed since the adoption gets its bytes from before it, exactly; one
 * changed since (Claude Code rewrites ~/.claude.json as it runs) gets each server's entry put
 * back at its place, the rest of the file as it is now; dsh.yml loses the adopted servers (and is
 * removed when the adoption made it and nothing changed it since).
 */
import { readForEdit, type ConfigFile } from './config-file.js'
import { DshYml } from './dsh-yml-servers.js'
import { JsonEdit } from './json-edit.js'
import { TomlEdit, type TomlValue } from './toml-edit.js'
import type { AdoptClient, Adoption, AdoptionRecord } from './adoption-record.js'
import { isObject } from './problems.js'

export interface RestorePlan {
  files: ConfigFile[]
  /** files to remove (a dsh.yml the adoption made) */
  remove: string[]
  record: AdoptionRecord
  restored: string[]
}

/** Each `key = value` of a TOML table, with the sub-table it sits in (tables of tables become sub-tables). */
function leaves(table: string[], value: Record<string, unknown>): { table: string[]; key: string; value: TomlValue }[] {
  const out: { table: string[]; key: string; value: TomlValue }[] = []
  for (const [key, item] of Object.entries(value)) {
    if (isObject(item)) out.push(...leaves([...table, key], item))
    else out.push({ table, key, value: item as TomlValue })
  }
  return out
}

export function restorePlan(client: AdoptClient, record: AdoptionRecord): RestorePlan {
  const texts = new Map<string, { before: string | undefined; now: string | undefined }>()
  const current = (path: string) => {
    if (!texts.has(path)) {
      const now = readForEdit(path)
      texts.set(path, { before: now, now })
    }
    return texts.get(path)!
  }
  const kept: Adoption[] = []
  const restored: string[] = []
  for (const adoption of [...record.adoptions].reverse()) {
    if (adoption.client !== client) {
      kept.unshift(adoption)
      continue
    }
    for (const file of adoption.files) {
      const state = current(file.path)
      if (state.now === file.after) {
        state.now = file.before
        continue
      }
      const servers = adoption.servers.filter((s) => s.file === file.path)
      if (servers.length > 0) {
        if (client === 'codex') {
          const toml = new TomlEdit(state.now, file.path)
          for (const s of servers) for (const leaf of leaves(s.path.map(String), s.entry as Record<string, unknown>)) toml.set(leaf.table, leaf.key, leaf.value)
          state.now = toml.text
        } else {
          const json = new JsonEdit(state.now, file.path)
          for (const s of servers) json.set(s.path, s.entry)
          state.now = json.text
        }
      } else if (state.now !== undefined) {
        const yml = new DshYml(state.now, file.path)
        for (const s of adoption.servers) yml.remove(s.name)
        state.now = yml.text
      }
    }
    restored.push(...adoption.servers.map((s) => s.name))
  }
  const files: ConfigFile[] = []
  const remove: string[] = []
  for (const [path, { before, now }] of texts) {
    if (now === undefined) {
      if (before !== undefined) remove.push(path)
    } else files.push({ path, before, after: now })
  }
  return { files, remove, record: { project: record.project, adoptions: kept }, restored }
}
