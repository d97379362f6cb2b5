/**
 * The progress line of a running command: how much output has come so far.
 */
import type { OutputCapture } from '@dsh/sandbox'

export function describeOutput(stdout: OutputCapture, stderr: OutputCapture): string {
  const bytes = stdout.bytes + stderr.bytes
  const lines = stdout.lines + stderr.lines
  return `${bytes} byte${bytes === 1 ? '' : 's'}, ${lines} line${lines === 1 ? '' : 's'} of output so far`
}
