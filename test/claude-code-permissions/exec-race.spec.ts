/**
 * The limit of exec rules, shown rather than hidden (docs/threat-model.md,
 * `exec-argv-race`): a program whose second thread rewrites the path it is
 * about to exec, between /bin/ls (allowed) and /bin/rm (denied). A deny is
 * safe — every exec the check refused failed with EACCES and never ran, one
 * `permission/decided` each — but after an allow the kernel reads the path
 * again, and the thread may have swapped rm in by then. The spec counts how
 * often that happened and prints it; it asserts only what holds.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as permissions from '@dsh/claude-code-permissions'
import * as workspaceTools from '@dsh/workspace-tools'
import { createTestKernel, type TestKernel } from 'dsh/testing'
import { sandboxBackend, skipWhen } from '../backends.js'

const ATTEMPTS = 100
const skip = skipWhen(!(await sandboxBackend()), 'the exec race', 'no sandbox backend can confine a command here')
  || skipWhen(!existsSync('/usr/bin/gcc'), 'the exec race', 'gcc is not installed to build the racing program')

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

describe.skipIf(skip)('a racing thread against an exec rule', () => {
  it(`deny is safe; an allow can be raced (${ATTEMPTS} attempts, counted)`, async () => {
    k = await createTestKernel({ sandbox: { mode: 'workspace-write' } })
    k.ctx.plugin(workspaceTools as any, { workspace: k.dir })
    k.ctx.plugin(permissions as any, { settingsFiles: [], preset: 'on-request', permissions: { deny: ['Bash(rm:*)'] } })
    await k.ctx.lifecycle.flush()
    execFileSync('gcc', ['-O2', '-pthread', '-o', join(k.dir, 'racer'), join(import.meta.dirname, '../fixtures/exec-race/racer.c')])
    const result = await k.call('bash', { command: `./racer ${ATTEMPTS} f`, timeout: 120_000 })
    const value = result.value as { stdout: string }
    const m = /^refused (\d+) ls (\d+) rm (\d+) other (\d+)$/m.exec(value.stdout)
    expect(m, value.stdout).not.toBeNull()
    const [refused, ls, rm, other] = m!.slice(1).map(Number)
    expect(refused + ls + rm + other).toBe(ATTEMPTS)
    // every refusal is one record, and each refused exec failed: nothing the check denied ran
    const denied = k.session.events().filter((e) => e.type === 'permission/decided' && (e.data as { by?: string; decision: string }).by === 'exec' && (e.data as { decision: string }).decision === 'deny')
    expect(denied.length).toBe(refused)
    console.warn(`exec race: ${refused} refused, ${ls} ran ls as checked, ${rm} ran rm after the check allowed ls (the documented limit), ${other} other`)
  }, 180_000)
})
