/**
 * When the CLI runs from its bundle (`dist/`, built by `scripts/build-bundle.js`;
 * decisions/2026-12-01-cli-bundle.md): the bundled plugins come from the
 * bundle itself, and a plugin from outside it (a path, another package) that
 * imports a package the bundle holds (cordis, schemastery, `@dsh/kernel`,
 * `dsh`, ...) gets the bundle's copy, through a module resolve hook registered
 * on the first such import — one copy of each shared package, as when the CLI
 * runs from `lib/`. Nothing here is set when it runs from `lib/`.
 */
import * as nodeModule from 'node:module'

export interface BundleInfo {
  /** a loader for each bundled plugin, by its short name (`workspace-tools`) */
  plugins: Readonly<Record<string, () => Promise<unknown>>>
  /** package specifier (`@dsh/kernel`, `cordis`) → the file URL of the bundle's module re-exporting it */
  shared: Readonly<Record<string, string>>
  /** the bundle's directory URL (ends in `/`): modules in it import the bundled code directly */
  dir: string
}

let bundle: BundleInfo | undefined

/** Called by the bundle's entry before the CLI starts. */
export function enterBundle(info: BundleInfo): void {
  bundle = info
}

/** Whether the CLI runs from its bundle. */
export function inBundle(): boolean {
  return bundle !== undefined
}

/** The bundle's own loader of a bundled plugin named by `spec` (`workspace-tools` or `@dsh/workspace-tools`), if it runs from the bundle. */
export function bundledLoader(spec: string): (() => Promise<unknown>) | undefined {
  if (!bundle) return undefined
  const name = spec.startsWith('@dsh/') ? spec.slice('@dsh/'.length) : spec
  return Object.hasOwn(bundle.plugins, name) ? bundle.plugins[name] : undefined
}

const hookSource = (info: BundleInfo) => `
const SHARED = ${JSON.stringify(info.shared)}
const DIR = ${JSON.stringify(info.dir)}
export async function resolve(specifier, context, next) {
  const parent = context.parentURL
  if (Object.hasOwn(SHARED, specifier) && !(parent && parent.startsWith(DIR))) return { url: SHARED[specifier], format: 'module', shortCircuit: true }
  return next(specifier, context)
}
`

let hooked: boolean | undefined

/**
 * Before importing a plugin from outside the bundle: register (once) the hook that resolves the
 * shared packages it imports to the bundle's copies. Without `module.register` (Node before
 * 20.6) the plugin is refused: with a second copy of the kernel its registrations would not be
 * the kernel's.
 */
export function ensureSharedHooks(): void {
  if (!bundle || hooked) return
  const register = (nodeModule as { register?: (specifier: string) => void }).register
  if (typeof register !== 'function') throw new Error(`this Node (${process.version}) has no module.register, which a plugin from outside dsh's bundle needs to share its packages; run lib/cli.js instead of the bundle`)
  register(`data:text/javascript,${encodeURIComponent(hookSource(bundle))}`)
  hooked = true
}
