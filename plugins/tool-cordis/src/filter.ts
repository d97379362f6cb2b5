/**
 * Narrowing a snapshot: to one section, and/or to the entries named `name` or
 * owned by the plugin `name` (so `{ name: 'echo-tool' }` shows everything that
 * plugin registered, across sections).
 */
import { KernelError } from '@dsh/kernel'
import { SECTIONS, type RegistrySnapshot, type SectionName, type SnapshotFilter } from './types.js'

export type FilteredSnapshot = Partial<RegistrySnapshot>

function byName(snap: RegistrySnapshot, name: string): RegistrySnapshot {
  const match = (...values: Array<string | null | undefined>) => values.some((value) => value === name)
  return {
    mode: snap.mode,
    tools: snap.tools.filter((t) => match(t.name, t.owner)),
    listeners: snap.listeners
      .map((group) => (group.event === name ? group : { ...group, listeners: group.listeners.filter((l) => l.owner === name) }))
      .filter((group) => group.listeners.length > 0),
    guards: snap.guards.filter((g) => g.owner === name),
    prompt: snap.prompt.filter((s) => match(s.id, s.owner)),
    sandbox: snap.sandbox && { ...snap.sandbox, candidates: snap.sandbox.candidates.filter((c) => c.name === name) },
    approval: snap.approval,
    plugins: snap.plugins.filter((p) => match(p.name, p.spec)),
  }
}

export function filterSnapshot(snap: RegistrySnapshot, filter: SnapshotFilter = {}): FilteredSnapshot {
  const { section, name } = filter
  if (section !== undefined && !(SECTIONS as readonly string[]).includes(section)) {
    throw new KernelError('INVALID_CONFIG', `unknown section ${JSON.stringify(section)}; sections: ${SECTIONS.join(', ')}`)
  }
  if (name !== undefined && typeof name !== 'string') throw new KernelError('INVALID_CONFIG', 'name must be a string')
  const narrowed = name === undefined ? snap : byName(snap, name)
  if (section === undefined) return narrowed
  const out: FilteredSnapshot = { [section]: narrowed[section as SectionName] }
  // a tool list reads differently under each mode: keep the mode with it
  if (section === 'tools') out.mode = narrowed.mode
  return out
}
