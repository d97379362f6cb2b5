import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorCodes } from '@dsh/kernel'

const doc = readFileSync(join(import.meta.dirname, '../../docs/errors.md'), 'utf8')
const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])

describe('docs/errors.md', () => {
  it('lists every error code, each once', () => {
    expect(documented.sort()).toEqual(Object.keys(errorCodes).sort())
  })
})
