/**
 * Whether a process is still there, for tests that kill real processes: a
 * killed one may take a moment to be reaped, so `gone` polls, bounded.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { pidAlive } from '@dsh/kernel'

export { pidAlive }

/** Wait (at most `ms`) until `pid` is gone. */
export async function gone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (!pidAlive(pid)) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return !pidAlive(pid)
}

/**
 * The pids of the processes whose command line holds `token`, from /proc: host pids, whatever pid
 * namespace a sandbox ran them in (a subshell shares its parent's command line).
 */
export function processesWith(token: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token)) pids.push(Number(entry))
    } catch {}
  }
  return pids
}

/**
 * Wait (at most `ms`) until no process's command line holds `token`: a test that asserts what a
 * killed process did not do waits for it to be gone, not for a fixed time after which a slow
 * machine's unkilled process may not have done it yet either.
 */
export async function noneLeftWith(token: string, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (processesWith(token).length === 0) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return processesWith(token).length === 0
}
