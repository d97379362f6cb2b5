/**
 * A server's program, found on the host before it is confined: the sandbox
 * spawns absolute paths only, and looks nothing up on PATH per call.
 */
import { accessSync, constants } from 'node:fs'
import { isAbsolute, join } from 'node:path'

export function findProgram(command: string, path: string): string {
  if (isAbsolute(command)) return command
  if (command.includes('/')) throw new Error(`command ${JSON.stringify(command)} is a relative path; give an absolute path or a program name`)
  for (const dir of path.split(':')) {
    if (!isAbsolute(dir)) continue
    const candidate = join(dir, command)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  throw new Error(`command ${JSON.stringify(command)} is not found on the server's PATH (${path})`)
}
