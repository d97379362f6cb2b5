/**
 * A stdio server that lies under the host's /tmp cannot run confined: every
 * Linux backend gives a confined process a /tmp of its own (bwrap and
 * landlock-ns a private tmpfs, where only the workspace is bound again) or
 * none it may read (Landlock alone). Such a server is refused at its start,
 * naming the key, the path and the fix, instead of failing inside with an
 * ENOENT from its own loader; the view is not widened to the host's /tmp
 * (docs/mcp-servers-from-clients.md, "A server under /tmp").
 */
import { lstatSync, realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'

/** the backends under which a confined process does not see the host's /tmp */
export const HOST_TMP_HIDDEN = new Set(['bwrap', 'landlock-ns', 'landlock'])

const inside = (dir: string, path: string) => {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The path `given` as the server would open it, and where it really lies, when it exists on the host. */
function located(given: string, cwd: string): { path: string; real: string } | undefined {
  const path = resolve(cwd, given)
  try {
    lstatSync(path)
  } catch {
    return undefined
  }
  try {
    return { path, real: realpathSync(path) }
  } catch {
    return { path, real: path }
  }
}

/** What of the server's command and args (relative ones from `cwd`) a process confined by `backend` could not see, with its key; undefined when nothing. */
export function hostTmpProblem(server: string, input: { program: string; args: readonly string[]; cwd: string; workspace: string; backend: string }): string | undefined {
  if (!HOST_TMP_HIDDEN.has(input.backend)) return undefined
  // the workspace is shown again on the private /tmp, so what lies in it is seen
  const shown = [input.workspace, located(input.workspace, '/')?.real ?? input.workspace]
  const hidden = (at: { path: string; real: string }) => [at.path, at.real].find((p) => inside('/tmp', p) && !shown.some((w) => inside(w, p)))
  const candidates: Array<{ key: string; given: string }> = [{ key: 'command', given: input.program }]
  input.args.forEach((arg, i) => {
    // an option's value too (`--root=/tmp/data`)
    for (const given of [arg, arg.slice(arg.indexOf('=') + 1)]) {
      if (isAbsolute(given) || given.startsWith('./') || given.startsWith('../')) candidates.push({ key: `args[${i}]`, given })
    }
  })
  for (const { key, given } of candidates) {
    const at = located(given, input.cwd)
    const path = at && hidden(at)
    if (!path) continue
    return `servers.${server}.${key}: ${path} lies under /tmp, and a server confined by ${input.backend} sees a /tmp of its own, without it; `
      + 'install or copy the server outside /tmp (under ~/.cache or the workspace, say), or run it unconfined with sandbox.mode: danger-full-access'
  }
  return undefined
}
