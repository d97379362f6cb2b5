/** A file dsh loads read through the sandbox's ledger, since where entries are put back after a call the disk may hold what a command wrote (docs/decisions/2026-12-02-protect-what-dsh-loads.md). */
import { readFileSync, realpathSync } from 'node:fs'
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

/**
 * Before importing a plugin loaded by path: what a dead dsh process's call left in its entry file
 * or directory is put back, and a PLUGIN_FAILED error says why not when the ledger refuses the
 * file or a confined call in progress is changing it.
 */
export function checkPluginCode(spec: string, entry: string): void {
  let read
  let real: string
  try {
    real = realpathSync(entry)
    read = readProtected(real)
  } catch {
    // a file that cannot be resolved is the import's error to report, with its hints
    return
  }
  if ('refused' in read) throw new KernelError('PLUGIN_FAILED', `plugin ${spec} cannot be loaded: ${read.refused}`, { details: { plugin: spec } })
  if (read.from !== 'copy') return
  let disk: string | undefined
  try {
    disk = readFileSync(real, 'utf8')
  } catch {}
  // Why refused, not imported from the copy: the import reads the disk, which holds what the call wrote
  if (disk !== read.text) throw new KernelError('PLUGIN_FAILED', `plugin ${spec} cannot be loaded: ${entry} is being changed by a confined call in progress (it is put back when the call ends); load it again once the call has ended`, { details: { plugin: spec } })
}
