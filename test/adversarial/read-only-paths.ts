// The two ways a plugin keeps a path inside a writable root read-only —
// `ctx.sandbox.protect(paths)` (what dsh loads) and a restriction's `readOnly`
// (`ctx.sandbox.restrict`, an Edit deny rule's paths) — are one mechanism, so
// each holds against the same attacks on each real backend: a plain overwrite,
// and renaming the file's parent away and planting a new file at the path
// (`mv conf confX && mkdir conf && echo evil > conf/keep`). Afterwards the host
// finds the original content at the path the user knows, whatever the command
// managed inside (bwrap and landlock-ns refuse the rename; Landlock alone lets
// it happen and puts the file back).
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import type { LocalBackend } from '@dsh/sandbox'
import { describeOnBackend, runConfined, tmp, tree } from './harness.js'
import { lacks } from '../backends.js'

const ORIGINAL = 'kept: original\n'

const ATTACKS: Record<string, (file: string) => string> = {
  overwrite: (file) => `echo evil > ${file}`,
  'rename the parent and plant': (file) => {
    const dir = path.dirname(file)
    return `mv ${dir} ${dir}X; mkdir -p ${dir} && echo evil > ${file}`
  },
  'rename the grandparent and plant': (file) => {
    const top = path.dirname(path.dirname(file))
    return `mv ${top} ${top}X; mkdir -p ${path.dirname(file)} && echo evil > ${file}`
  },
}

export async function readOnlyPathsSuite(backend: LocalBackend): Promise<void> {
  const skip = await lacks(backend, `the ${backend} read-only paths suite`)
  describeOnBackend(backend, `${backend}: protected and restricted paths stay unwritable`, skip, (sb) => {
    for (const [attack, script] of Object.entries(ATTACKS)) {
      for (const how of ['protect', 'restrict'] as const) {
        it(`${how}(): ${attack}`, async () => {
          const ws = tmp('ro-ws')
          const file = path.join(ws, 'nested', how === 'protect' ? 'conf' : 'rules', 'keep')
          fs.mkdirSync(path.dirname(file), { recursive: true })
          fs.writeFileSync(file, ORIGINAL)
          const service = sb().service
          const dispose = how === 'protect' ? service.protect([file]) : service.restrict(() => ({ readOnly: [file] }))
          try {
            const confined = await sb().confine(['/bin/sh', '-c', script(file)], ws)
            await runConfined(confined, ws)
            confined.cleanup()
          } finally {
            dispose()
          }
          // what the host reads at the path afterwards: the original, nothing planted
          expect(fs.readFileSync(file, 'utf8')).toBe(ORIGINAL)
          expect(tree(path.dirname(file))).toEqual({ keep: ORIGINAL })
        })
      }
    }
  })
}
