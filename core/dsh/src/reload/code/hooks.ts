/**
 * The module loader hook that makes a plugin's code importable afresh
 * (decisions/2026-12-01-plugin-code-reload.md): a module imported with
 * `?dsh-code=<n>` passes the same query on to every module it imports by a
 * path (`./`, `../`, `/`, `file:`), so its whole local graph is evaluated
 * again, while what it imports by package name (cordis, dsh, schemastery)
 * stays the one copy the kernel shares. Registered once, on the first
 * fresh import: a process that never reloads code never starts the hooks
 * thread.
 */
import * as nodeModule from 'node:module'

export const CODE_PARAM = 'dsh-code'

const SOURCE = `
const PARAM = ${JSON.stringify(CODE_PARAM)}
const BY_PATH = /^(?:\\.{1,2}\\/|\\/|file:)/
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  const parent = context.parentURL
  if (!parent || !parent.startsWith('file:') || !result.url.startsWith('file:') || !BY_PATH.test(specifier)) return result
  const generation = new URL(parent).searchParams.get(PARAM)
  if (generation === null) return result
  const url = new URL(result.url)
  if (url.searchParams.has(PARAM)) return result
  url.searchParams.set(PARAM, generation)
  return { ...result, url: url.href }
}
`

let registered: boolean | undefined

/** Register the hook (once); false where this Node has no `module.register`. */
export function ensureCodeHooks(): boolean {
  if (registered === undefined) {
    const register = (nodeModule as { register?: (specifier: string) => void }).register
    try {
      register?.(`data:text/javascript,${encodeURIComponent(SOURCE)}`)
      registered = typeof register === 'function'
    } catch {
      registered = false
    }
  }
  return registered
}

let generation = 0

/** A file URL to import as new code: the hook carries its query to the module's own files. */
export function freshUrl(url: string): string {
  ensureCodeHooks()
  const fresh = new URL(url)
  fresh.searchParams.set(CODE_PARAM, String(++generation))
  return fresh.href
}
