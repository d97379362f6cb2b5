import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUNDLED, createKernel, KernelError } from 'dsh'

let project: string
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'dsh-plugin-load-'))
})
afterEach(() => rmSync(project, { recursive: true, force: true }))

/** createKernel with a dsh.yml in the project naming one plugin; the error it rejects with. */
async function loadFailure(spec: string): Promise<KernelError> {
  const configFile = join(project, 'dsh.yml')
  writeFileSync(configFile, `plugins:\n  ${JSON.stringify(spec)}: {}\n`)
  try {
    const kernel = await createKernel({ configFile, dataDir: join(project, '.dsh') })
    await kernel.dispose()
  } catch (error) {
    expect(KernelError.is(error, 'PLUGIN_FAILED')).toBe(true)
    return error as KernelError
  }
  throw new Error(`expected ${spec} to fail to load`)
}

describe('a plugin that cannot load says why, and where the loader looked', () => {
  it('a typo of a bundled name: not installed, where it looked, "did you mean", and the bundled names', async () => {
    const { message } = await loadFailure('timeout-polcy')
    expect(message).toContain('plugin timeout-polcy cannot be loaded: package timeout-polcy is not installed: looked in ')
    expect(message).toContain(`${project}/node_modules (and the node_modules of its parents)`)
    expect(message).toContain('Did you mean the bundled plugin "timeout-policy"?')
    expect(message).toContain(`Bundled plugins: ${BUNDLED.join(', ')}`)
    expect(message).not.toMatch(/imported from/)
  })

  it('a package that is not installed and near no bundled name gets no suggestion', async () => {
    const { message } = await loadFailure('@acme/dsh-audit')
    expect(message).toContain('package @acme/dsh-audit is not installed: looked in ')
    expect(message).not.toContain('Did you mean')
    expect(message).toContain('Bundled plugins: ')
  })

  it('an installed package whose exports map has only an import condition is recognised as such', async () => {
    const dir = join(project, 'node_modules', 'import-only')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'import-only', type: 'module', exports: { '.': { import: './index.js' } } }))
    writeFileSync(join(dir, 'index.js'), 'export const name = "import-only"\nexport function apply() {}\n')
    const { message } = await loadFailure('import-only')
    expect(message).toContain('package import-only is installed, but the "exports" map in its package.json has no condition the loader resolves for "."')
    expect(message).toContain('add a "default" condition')
    expect(message).not.toContain('is not installed')
  })

  it('a path that names no file says which absolute path it tried', async () => {
    const { message } = await loadFailure('./plugins/missing.js')
    expect(message).toBe(`plugin ./plugins/missing.js cannot be loaded: no file at ${join(project, 'plugins/missing.js')} ("./plugins/missing.js" is resolved against ${project})`)
  })
})
