/** The absolute paths the kernel and plugins register as protected, tied to the registering scope, since what dsh loads runs outside any sandbox (docs/decisions/2026-12-02-protect-what-dsh-loads.md). */
import { lstatSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { KernelError } from '@dsh/kernel'
import { isInside } from '../paths.js'
import { realOrPlanned } from './targets.js'

/** One registration: its paths as given (resolved) and as their real paths. */
export interface Registration {
  readonly paths: readonly string[]
  /** who registered them, for error messages (the plugin's name) */
  readonly owner: string
}

function bad(field: string, message: string, value: unknown): KernelError {
  return new KernelError('INVALID_POLICY', `sandbox.protect: ${field} ${message} (got ${JSON.stringify(value) ?? typeof value})`, { details: { field } })
}

/** Check a list given to `protect()`: absolute paths without NUL. Throws INVALID_POLICY naming `paths[i]`. */
export function checkRegistered(value: unknown): string[] {
  if (!Array.isArray(value)) throw bad('paths', 'must be an array of absolute paths', value)
  const out: string[] = []
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item === '' || item.includes('\0')) throw bad(`paths[${i}]`, 'must be a non-empty path without NUL', item)
    if (!isAbsolute(item)) throw bad(`paths[${i}]`, 'must be an absolute path', item)
    // Why both: a symlinked config (`dsh.yml -> conf/dsh.yml`) is read through the link and written at its target
    out.push(resolve(item), realOrPlanned(item))
  })
  return [...new Set(out)]
}

export class ProtectedRegistry {
  private registrations: Registration[] = []
  private flat: readonly string[] = Object.freeze([])

  add(registration: Registration): () => void {
    this.registrations = [...this.registrations, registration]
    this.rebuild()
    return () => {
      this.registrations = this.registrations.filter((r) => r !== registration)
      this.rebuild()
    }
  }

  /** every registered path (resolved and real), each once */
  paths(): readonly string[] {
    return this.flat
  }

  /** who registered `path`, for messages */
  ownerOf(path: string): string | undefined {
    return this.registrations.find((r) => r.paths.includes(path))?.owner
  }

  private rebuild(): void {
    this.flat = Object.freeze([...new Set(this.registrations.flatMap((r) => r.paths))])
  }
}

/**
 * The registered paths that lie strictly inside one of `roots` (real
 * paths), for one policy. One that is a writable root or holds one cannot
 * stay read-only while the root is writable: the policy is refused
 * (INVALID_POLICY), never confined with the path left writable.
 */
export function registeredInside(paths: readonly string[], roots: readonly string[], ownerOf: (path: string) => string | undefined = () => undefined): string[] {
  if (!paths.length || !roots.length) return []
  const inside: string[] = []
  for (const path of paths) {
    const holds = roots.find((root) => isInside(path, root))
    if (holds) {
      const who = ownerOf(path)
      throw new KernelError('INVALID_POLICY', `sandbox policy: ${path}${who ? ` (protected for ${who})` : ''} is, or holds, the writable root ${holds}, which cannot stay read-only while it is writable; move it out of the root or make the root narrower`, { details: { field: 'writableRoots', path } })
    }
    if (roots.some((root) => isInside(root, path))) inside.push(path)
  }
  return inside
}

/** The registered entries a call copies and puts back on every backend: the regular files among them. */
export function registeredFiles(paths: readonly string[]): string[] {
  return paths.filter((path) => {
    try {
      return lstatSync(path).isFile()
    } catch {
      return false
    }
  })
}
