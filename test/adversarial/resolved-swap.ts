// A writable root swapped after the host resolved it, on each real backend:
// a concurrent call that can write the root's parent replaces the root by a
// link to a directory outside every root, or by another directory, between
// confine() (which resolved the paths and built the argv) and the launch.
// The launcher opens every path it was given with O_NOFOLLOW and checks the
// inode the host resolved (--inode): the call fails before the command runs,
// and nothing is written where the swap pointed.
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { describeOnBackend, outsideDir, runConfined, tmp, tree } from './harness.js'
import { lacks } from '../backends.js'

export async function resolvedSwapSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} resolved-swap suite`)
  describeOnBackend(backend, `a root swapped after it was resolved, on the ${backend} backend`, skip, (sb) => {
    /** A root `ws/root` whose parent a concurrent call could write, confined; then `swap` runs before the launch. */
    const swapped = async (swap: (root: string) => void) => {
      const parent = tmp('parent')
      const root = path.join(parent, 'root')
      fs.mkdirSync(root)
      const confined = await sb().confine(['/bin/sh', '-c', `echo planted > ${root}/f; echo ran`], root)
      swap(root)
      const run = await runConfined(confined, parent)
      confined.cleanup()
      return { root, run }
    }

    it('swapped for a link to a directory outside: refused before the command runs, nothing written outside', async () => {
      const outside = outsideDir()
      const { run } = await swapped((root) => {
        fs.renameSync(root, `${root}.moved`)
        fs.symlinkSync(outside, root)
      })
      expect(run.code).toBe(125)
      expect(run.stdout).not.toContain('ran')
      expect(run.stderr).toMatch(/symbolic link|not the directory the host resolved/)
      expect(tree(outside)).toEqual({})
    })

    it('swapped for another directory (renamed into its place): refused by its inode, nothing written in it', async () => {
      const { root, run } = await swapped((root) => {
        fs.renameSync(root, `${root}.moved`)
        fs.mkdirSync(root)
      })
      expect(run.code).toBe(125)
      expect(run.stdout).not.toContain('ran')
      expect(run.stderr).toContain('not the directory the host resolved')
      expect(tree(root)).toEqual({})
      expect(tree(`${root}.moved`)).toEqual({})
    })
  })
}
