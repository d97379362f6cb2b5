/**
 * The plugins block of `dsh inspect`'s tree: each plugin with what it owns —
 * its tools, guards (by the name a refusal gives them), listeners and prompt
 * sections — and the plugins it plugged under it. Owners are names: a
 * registration goes under the first plugin of that name, and so does a child
 * whose parent has that name.
 */
import type { FilteredSnapshot } from './filter.js'
import type { PluginInfo } from './types.js'

export interface TreeText {
  /** one line of text from a plugin or config, made safe for a terminal */
  clean(text: string): string
  /** the first line of a plugin: its name, spec, kind, status, config */
  head(plugin: PluginInfo): string
  dim(text: string): string
  cyan(text: string): string
  /** tree lines for items (each an array: its head line, then lines hanging under it) */
  branch(items: string[][]): string[]
}

/** What each owner registered, as lines, from the sections the snapshot has. */
function ownedLines(snap: FilteredSnapshot, t: TreeText): Map<string, string[]> {
  const owned = new Map<string, string[]>()
  const add = (owner: string, line: string) => {
    const lines = owned.get(owner)
    if (lines) lines.push(line)
    else owned.set(owner, [line])
  }
  for (const tool of snap.tools ?? []) add(tool.owner, `${t.dim('tool')} ${t.clean(tool.name)}`)
  for (const guard of snap.guards ?? []) add(guard.owner, `${t.dim('guard')} ${t.clean(guard.name)} ${t.dim(`(${guard.order}. of all guards)`)}`)
  for (const group of snap.listeners ?? []) {
    for (const l of group.listeners) {
      add(l.owner, `${t.dim('listener')} ${t.clean(group.event)} ${t.dim(`#${l.order}`)}${l.function ? ` ${t.clean(l.function)}` : ''}${l.prepend ? t.dim(' prepend') : ''}`)
    }
  }
  for (const section of snap.prompt ?? []) add(section.owner, `${t.dim('prompt')} ${t.clean(section.id)}`)
  return owned
}

export function pluginTreeItems(snap: FilteredSnapshot, t: TreeText): string[][] {
  const plugins = snap.plugins ?? []
  const firstByName = new Map<string, number>()
  plugins.forEach((plugin, index) => { if (!firstByName.has(plugin.name)) firstByName.set(plugin.name, index) })
  const children = new Map<number, number[]>()
  const roots: number[] = []
  plugins.forEach((plugin, index) => {
    const parent = plugin.parent === null || plugin.parent === undefined ? undefined : firstByName.get(plugin.parent)
    if (parent === undefined || parent === index) roots.push(index)
    else children.set(parent, [...(children.get(parent) ?? []), index])
  })
  const owned = ownedLines(snap, t)
  const seen = new Set<number>()
  const item = (index: number): string[] => {
    seen.add(index)
    const plugin = plugins[index]
    const lines = firstByName.get(plugin.name) === index ? (owned.get(plugin.name) ?? []).map((line) => [line]) : []
    const kids = (children.get(index) ?? []).filter((child) => !seen.has(child)).map(item)
    return [t.head(plugin), ...t.branch([...lines, ...kids])]
  }
  const items = roots.map(item)
  // a parent chain that loops back (names reused) still shows every plugin once
  plugins.forEach((_plugin, index) => { if (!seen.has(index)) items.push(item(index)) })
  return items
}
