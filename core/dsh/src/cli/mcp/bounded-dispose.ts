/**
 * The end of `dsh mcp` within its bound (DESIGN §16.1: 100 ms): once the session log is closed, the
 * kernel's dispose (cordis stopping every plugin) gets what is left of the bound; a dispose still
 * running then is left, and every child process this one still has is killed, its process group
 * with it when it leads one, so nothing dsh started outlives it. What matters is already done by
 * then: the calls were cancelled and recorded, the session ended and its log closed.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** Resolves with true once `dispose` settled, false when `ms` ran out first. */
export async function settleWithin(dispose: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), false)))
  try {
    return await Promise.race([dispose.then(() => true, () => true), late])
  } finally {
    clearTimeout(timer)
  }
}

/** The pids of this process's children (`/proc/self/task/<tid>/children`, Linux); none where it cannot be read. */
export function childPids(): number[] {
  const pids = new Set<number>()
  try {
    for (const task of readdirSync('/proc/self/task')) {
      try {
        for (const word of readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(/\s+/)) if (/^\d+$/.test(word)) pids.add(Number(word))
      } catch {
        // a thread that ended meanwhile
      }
    }
  } catch {
    // no /proc: nothing to list
  }
  return [...pids]
}

/** SIGKILL each child, and its process group where it leads one (a detached child's own children). Returns the pids signalled. */
export function killChildren(): number[] {
  const killed: number[] = []
  for (const pid of childPids()) {
    if (leadsGroup(pid)) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // the group is gone
      }
    }
    try {
      process.kill(pid, 'SIGKILL')
      killed.push(pid)
    } catch {
      // exited meanwhile
    }
  }
  return killed
}

/** Whether `pid` is its process group's leader (field 5 of /proc/<pid>/stat, after the command's closing parenthesis). */
function leadsGroup(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[2]) === pid
  } catch {
    return false
  }
}
