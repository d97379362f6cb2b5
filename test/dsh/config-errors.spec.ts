import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernel, KernelError } from 'dsh'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-config-errors-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function configFailure(text: string): Promise<{ message: string; file: string }> {
  const file = join(dir, 'dsh.yml')
  writeFileSync(file, text)
  try {
    const kernel = await createKernel({ configFile: file, dataDir: join(dir, '.dsh') })
    await kernel.dispose()
  } catch (error) {
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    return { message: (error as Error).message, file }
  }
  throw new Error('expected the config to be refused')
}

const count = (text: string, part: string) => text.split(part).length - 1

describe('config errors name the file once, with the line, an excerpt and a caret', () => {
  it('a YAML syntax error: the line and column, the line itself and a caret under the column', async () => {
    const { message, file } = await configFailure('sandbox:\n  mode: read-only\nplugins:\n  a: [1,\n b: 2\n')
    expect(count(message, file)).toBe(1)
    expect(message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: \\S`))
    const [, excerpt, caret] = message.split('\n')
    expect(excerpt.trim().length).toBeGreaterThan(0)
    expect(caret.trim()).toBe('^')
    expect(message).not.toMatch(/column \d+:$/)
  })

  it('an unknown key of the file: its line, the excerpt, a caret under the key', async () => {
    const { message, file } = await configFailure('sandbox:\n  mode: read-only\n  modee: workspace-write\n')
    expect(message).toBe(`${file}:3:3: unknown key sandbox.modee\n    modee: workspace-write\n    ^`)
  })

  it('a bad value of the file: schemastery\'s path located in the file', async () => {
    const { message, file } = await configFailure('sandbox:\n  mode: yolo\n')
    expect(count(message, file)).toBe(1)
    expect(message).toMatch(/^.*dsh\.yml:2:3: \$\.sandbox\.mode expected/)
    expect(message.split('\n').slice(1)).toEqual(['    mode: yolo', '    ^'])
  })

  it('an error in a plugin\'s config names the file, the line of the key and the plugin', async () => {
    const { message, file } = await configFailure('plugins:\n  timeout-policy:\n    defaultMs: 100\n    dfaultMs: 5\n')
    expect(message).toBe(`${file}:4:5: plugin timeout-policy: unknown key dfaultMs\n      dfaultMs: 5\n      ^`)
  })
})
