/**
 * Reading and writing whole files through checked fds (see paths.ts).
 */
import { closeSync, constants as O, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs'
import type { SandboxService } from '@dsh/sandbox'
import type { ToolCall } from '@dsh/tools'
import { areaFor, checkWritable, type Area } from '../area.js'
import type { Config } from '../config.js'
import { mkdirChecked, openChecked, PathRefused, resolveTarget, type Target } from '../paths.js'

/** The contents of an open regular file, refusing anything over `max` bytes. */
export function readFd(fd: number, input: string, max: number): Buffer {
  const st = fstatSync(fd)
  if (!st.isFile()) throw new PathRefused(`${input} is not a regular file`)
  if (st.size > max) throw new PathRefused(`${input} is ${st.size} bytes, over the ${max}-byte limit; read a range with bash (head, sed -n)`)
  const buf = Buffer.alloc(st.size)
  let at = 0
  while (at < buf.length) {
    const n = readSync(fd, buf, at, buf.length - at, at)
    if (n === 0) break
    at += n
  }
  return buf.subarray(0, at)
}

/** Replace the contents of an open file. */
export function rewriteFd(fd: number, data: Buffer): void {
  ftruncateSync(fd, 0)
  let at = 0
  while (at < data.length) at += writeSync(fd, data, at, data.length - at, at)
}

/** Refuse to write through a file other names also reach (a hard link made before the call). */
export function checkSingleLink(fd: number, input: string): void {
  const st = fstatSync(fd)
  if (!st.isFile()) throw new PathRefused(`${input} is not a regular file`)
  // Why: a hard link inside the workspace may be the same inode as a file outside it
  if (st.nlink > 1) throw new PathRefused(`${input} has ${st.nlink} hard links; writing it would also change the other names`)
}

export function withFd<T>(real: string, flags: number, body: (fd: number) => T): T {
  const fd = openChecked(real, flags)
  try {
    return body(fd)
  } finally {
    closeSync(fd)
  }
}

export const READ = O.O_RDONLY
export const WRITE_CREATE = O.O_WRONLY | O.O_CREAT
export const READ_WRITE = O.O_RDWR
export const DIRECTORY = O.O_RDONLY | O.O_DIRECTORY

/**
 * What a write-side tool (write, edit) does to the file the model names:
 * resolve it, check it against the writable roots, open it (`create`: its
 * missing directories made, the file created; else it must exist, and
 * `missing` is the refusal), refuse a file with other names, `change` it
 * through the fd, and record the call's sandbox for its audit.
 */
export function changeFile<T>(
  sandbox: SandboxService,
  config: Config,
  call: ToolCall,
  input: string,
  how: { create: true } | { create: false; missing: string },
  change: (fd: number) => T,
): { target: Target; area: Area; result: T } {
  const area = areaFor(sandbox, config, call)
  const target = resolveTarget(area.workspace, input, 'file_path')
  if (!how.create && !target.exists) throw new PathRefused(`${input} does not exist; ${how.missing}`)
  checkWritable(area, target.real, input)
  if (how.create) for (const dir of target.missing) mkdirChecked(dir)
  const result = withFd(target.real, how.create ? WRITE_CREATE : READ_WRITE, (fd) => {
    checkSingleLink(fd, input)
    return change(fd)
  })
  call.record({ sandbox: { backend: 'in-process', mode: area.mode } })
  return { target, area, result }
}
