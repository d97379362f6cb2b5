/**
 * Why a plugin spec cannot be loaded, in words a newcomer can act on: where
 * the loader looked, the bundled names (with a near miss suggested), and a
 * package whose `exports` map has no condition the loader resolves.
 */
import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { describeError } from '@dsh/kernel'

/** Edit distance between two short names (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return previous[b.length]
}

/** The bundled name `spec` is probably a typo of, if one is close. */
export function nearestBundled(spec: string, bundled: readonly string[]): string | undefined {
  const short = spec.startsWith('@dsh/') ? spec.slice('@dsh/'.length) : spec
  let best: { name: string; d: number } | undefined
  for (const name of bundled) {
    const d = distance(short, name)
    if (d <= Math.max(2, Math.floor(name.length / 5)) && (!best || d < best.d)) best = { name, d }
  }
  return best?.name
}

/** The message for a spec that did not resolve or import. */
export function whyNotLoadable(spec: string, baseDir: string, bundled: readonly string[], error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const path = resolve(baseDir, spec)
    if (!existsSync(path)) return `no file at ${path} (${JSON.stringify(spec)} is resolved against ${baseDir})`
    return describeError(error)
  }
  const name = bundled.includes(spec) ? `@dsh/${spec}` : spec
  if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') {
    return `package ${name} is installed, but the "exports" map in its package.json has no condition the loader resolves for "." ` +
      `(it resolves as require.resolve does, with the "require", "node" and "default" conditions; a map with only "import" is not enough): add a "default" condition`
  }
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
    const places = [...new Set([baseDir, process.cwd()])].map((dir) => `${dir}/node_modules (and the node_modules of its parents)`)
    const near = bundled.includes(spec) ? undefined : nearestBundled(spec, bundled)
    return `package ${name} is not installed: looked in ${places.join(' and in ')}. ` +
      `${near ? `Did you mean the bundled plugin "${near}"? ` : ''}Bundled plugins: ${bundled.join(', ')}`
  }
  return describeError(error)
}
