/**
 * Finding what a process left running, on Linux, from /proc: its descendants
 * (a `setsid` child leaves the process group but keeps its parent), the
 * members of its process group, and every process carrying the run's tag in
 * its environment (an orphan reparented to init keeps the environment it was
 * started with). Elsewhere there is no /proc and only the group is known.
 */
import { readdirSync, readFileSync } from 'node:fs'

interface Entry {
  pid: number
  ppid: number
  pgid: number
  tagged: boolean
}

/** The environment variable that marks every process of one run. */
export const PROCESS_TAG_VARIABLE = 'DSH_PROCESS_TAG'

function readEntry(pid: number, marker: Buffer | undefined): Entry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // the command name is in parentheses and may hold spaces or ')': the fields follow the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    let tagged = false
    if (marker) {
      try {
        tagged = readFileSync(`/proc/${pid}/environ`).includes(marker)
      } catch {}
    }
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), tagged }
  } catch {
    return undefined // gone meanwhile, or not ours to read
  }
}

/**
 * Every other process that belongs to the run rooted at `root`: its
 * descendants, its group's members and the tagged ones. Empty without /proc.
 */
export function processesOf(root: number, tag: string | undefined): number[] {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  // NUL-delimited on both sides, so one tag can never match a longer one
  const marker = tag ? Buffer.from(`${PROCESS_TAG_VARIABLE}=${tag}\0`) : undefined
  const entries: Entry[] = []
  for (const name of names) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue
    const entry = readEntry(pid, marker)
    if (entry) entries.push(entry)
  }
  const found = new Set<number>()
  for (const entry of entries) if (entry.tagged || entry.pgid === root) found.add(entry.pid)
  const children = new Map<number, number[]>()
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid])
  const todo = [root, ...found]
  while (todo.length) {
    for (const child of children.get(todo.pop()!) ?? []) {
      if (found.has(child)) continue
      found.add(child)
      todo.push(child)
    }
  }
  found.delete(root)
  return [...found]
}
