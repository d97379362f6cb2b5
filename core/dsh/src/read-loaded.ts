/**
 * Reading a file dsh loads (the config file) through the sandbox's ledger of
 * protected entries (`readProtected`): the config in use is a protected
 * entry, and where a backend puts protected entries back after a call
 * instead of keeping them read-only (plain Landlock), or a dsh process died
 * during a call, the file on disk may hold what a confined command wrote.
 * Through the ledger, a call in progress's copy is read instead, what a dead
 * process's call left is put back first, and an entry marked as not put back
 * is refused, saying why. See docs/decisions/2026-12-02-protect-what-dsh-loads.md.
 */
import { realpathSync } from 'node:fs'
import { describeError, KernelError } from '@dsh/kernel'
import { readProtected } from '@dsh/sandbox'

/** The text of `file` (absolute) as the sandbox's ledger says it is outside the calls in progress; INVALID_CONFIG otherwise. */
export function readLoaded(file: string): string {
  let real: string
  let read
  try {
    real = realpathSync(file)
    read = readProtected(real)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `cannot read ${file}: ${describeError(error)}`, { cause: error })
  }
  if ('refused' in read) throw new KernelError('INVALID_CONFIG', `cannot load ${file}: ${read.refused}`, { details: { file } })
  if (read.text === undefined) {
    throw new KernelError('INVALID_CONFIG', `cannot read ${file}: ${read.from === 'copy' ? 'it did not exist before the confined call in progress began (what the call created is removed when it ends)' : 'ENOENT: no such file'}`, { details: { file } })
  }
  return read.text
}
