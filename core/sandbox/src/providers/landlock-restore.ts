/** What Landlock alone puts back: each protected entry whole, but of git directories only what git runs or obeys, since objects and refs can be large (docs/decisions/2026-12-01-landlock-restore.md). */
import { lstatSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { policyProtected } from '../protected/entries.js'
import type { ResolvedPolicy } from '../types.js'

// Why commondir: git takes config and hooks from the directory it names, so one planted there redirects both
const GIT_PARTS = ['config', 'config.worktree', 'hooks', 'info', 'commondir']

function kind(path: string): 'dir' | 'other' | undefined {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'other'
  } catch {
    return undefined
  }
}

/** A git directory: `.git` itself, or what a `.git` file points to (HEAD and objects inside). */
function isGitDir(path: string): boolean {
  if (kind(path) !== 'dir') return false
  return basename(path) === '.git' || (kind(join(path, 'HEAD')) === 'other' && kind(join(path, 'objects')) === 'dir')
}

/** The existing protected entries of a policy that the service copies before the call and restores after it. */
export function landlockSnapshot(policy: ResolvedPolicy): string[] {
  if (policy.mode !== 'workspace-write') return []
  const out: string[] = []
  for (const path of policyProtected(policy).paths) {
    const name = basename(path)
    if (name === '.dsh' || !kind(path)) continue
    if (basename(dirname(path)) === '.git' && (name === 'modules' || name === 'worktrees')) continue
    if (isGitDir(path)) {
      // Why absent ones too: one the command creates (a commondir, hooks where there were none) is removed after
      for (const part of GIT_PARTS) out.push(join(path, part))
      continue
    }
    out.push(path)
  }
  return [...new Set(out)]
}
