// sandbox.limits in dsh.yml (issue 29, item 8): accepted, passed to every
// confined command (the launcher sets them before exec), and a bad value
// refused once, naming the file, the line and the key path.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKernel, KernelError, type Kernel } from 'dsh'
import { sandboxBackend, skipWhen } from '../backends.js'
import { tempDirs } from '../temp-dirs.js'

const dirs = tempDirs()
const kernels: Kernel[] = []
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.dispose()
  dirs.removeAll()
})
const backend = await sandboxBackend()

function configWith(limits: string): string {
  const ws = dirs.make('dsh-limits-')
  const file = join(ws, 'dsh.yml')
  writeFileSync(file, `dataDir: ${join(ws, '.dsh')}\nsandbox:\n  workspace: ${ws}\n  limits: ${limits}\nplugins:\n  workspace-tools: { workspace: ${JSON.stringify(ws)} }\n`)
  return file
}

async function failure(file: string): Promise<string> {
  try {
    kernels.push(await createKernel({ configFile: file }))
  } catch (error) {
    expect(KernelError.is(error, 'INVALID_CONFIG')).toBe(true)
    return (error as Error).message
  }
  throw new Error('expected the config to be refused')
}

describe('sandbox.limits in dsh.yml', () => {
  it.skipIf(skipWhen(!backend, 'limits reaching a confined command', 'no sandbox backend here'))('is accepted and reaches every confined command', async () => {
    const kernel = await createKernel({ configFile: configWith('{ openFiles: 64, cpuSeconds: 7 }') })
    kernels.push(kernel)
    const session = kernel.openSession()
    session.beginTurn()
    const r = await kernel.execute({ callId: 'l1', name: 'bash', arguments: { command: 'ulimit -n; ulimit -t' }, session })
    expect(r.isError).toBe(false)
    expect(r.value).toMatchObject({ stdout: '64\n7\n' })
  })

  it('a bad value is refused naming the file, the line and the key path', async () => {
    for (const [limits, pattern] of [
      ['{ openFiles: 0 }', /dsh\.yml:4:\d+: .*sandbox\.limits\.openFiles .*>= 1/],
      ['{ memoryBytes: 1.5 }', /dsh\.yml:4:\d+: .*sandbox\.limits\.memoryBytes/],
      ['{ memoryBytes: "16G" }', /dsh\.yml:4:\d+: .*sandbox\.limits\.memoryBytes expected number/],
      ['{ processess: 10 }', /dsh\.yml:4:\d+: unknown key sandbox\.limits\.processess/],
      ['7', /dsh\.yml:4:3: .*sandbox\.limits expected object/],
    ] as const) {
      const message = await failure(configWith(limits))
      expect(message, limits).toMatch(pattern)
      // the file is named once
      expect(message.split('dsh.yml').length - 1, limits).toBe(1)
    }
  })
})
