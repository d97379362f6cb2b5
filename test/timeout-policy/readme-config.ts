// The `dsh.yml` example of a plugin's README, loaded through the real config file reader
// (shared by the README tests of the three policy plugins).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { createTestKernel, type TestKernel } from 'dsh/testing'

export function readmeYaml(plugin: string): string {
  const readme = readFileSync(new URL(`../../plugins/${plugin}/README.md`, import.meta.url), 'utf8')
  const block = /```yaml\n([\s\S]*?)```/.exec(readme)
  if (!block) throw new Error(`plugins/${plugin}/README.md has no yaml example`)
  return block[1]
}

/** A kernel created from the README's example as its `configFile`, and the config the example gives the plugin. */
export async function kernelFromReadme(plugin: string): Promise<{ k: TestKernel; example: unknown; done(): Promise<void> }> {
  const text = readmeYaml(plugin)
  const dir = mkdtempSync(join(tmpdir(), 'dsh-readme-'))
  const file = join(dir, 'dsh.yml')
  writeFileSync(file, text)
  const k = await createTestKernel({ configFile: file })
  return {
    k,
    example: parse(text).plugins[plugin],
    async done() {
      await k.cleanup()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
