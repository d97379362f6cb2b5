/**
 * Killing a run's processes: its process group, then every process /proc
 * shows as belonging to it (see tree.ts), each with its own group.
 */
import { processesOf } from './tree.js'

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  // Why: -0 is our own group and -1 every process we may signal
  if (!Number.isInteger(pid) || pid <= 1) return
  try {
    process.kill(-pid, signal)
  } catch {}
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return
  try {
    process.kill(pid, signal)
  } catch {}
}

/**
 * Signal the group led by `pid` and everything else of the run. The others
 * are listed before any signal is sent, so a parent dying first cannot hide
 * its children by orphaning them.
 */
export function killRun(pid: number | undefined, tag: string | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined || pid <= 1) return
  const others = processesOf(pid, tag)
  signalGroup(pid, signal)
  for (const other of others) {
    signalGroup(other, signal)
    signalProcess(other, signal)
  }
}
