/**
 * Whether a process is still there, for tests that kill real processes: a
 * killed one may take a moment to be reaped, so `gone` polls, bounded.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Wait (at most `ms`) until `pid` is gone. */
export async function gone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (!alive(pid)) return true
    await new Promise((r) => setTimeout(r, 20))
  }
  return !alive(pid)
}
