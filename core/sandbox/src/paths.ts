import { isAbsolute, relative, sep } from 'node:path'

/** `child` equals `parent` or lies beneath it (both real, absolute paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}
