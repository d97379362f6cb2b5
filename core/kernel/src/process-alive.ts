/**
 * Whether a process with this pid exists: the one check behind a session lock's and the sandbox
 * ledger's "is its holder still running". One we may not signal (EPERM) exists too.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
