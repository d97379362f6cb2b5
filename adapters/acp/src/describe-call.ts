/**
 * How a kernel call is shown in the client's permission prompt: a title, an
 * ACP tool kind and the paths it touches. Text from the model is cut and its
 * control and bidirectional-override characters escaped, so hostile
 * arguments cannot disguise what the user approves.
 */
import { isAbsolute, resolve } from 'node:path'
import type { Execution } from 'dsh'
import type { AcpToolCallLocation, AcpToolKind } from './protocol.js'

/** our tool name → the ACP kind shown (tools not listed are `other`) */
export const TOOL_KINDS: Readonly<Record<string, AcpToolKind>> = Object.freeze({
  read: 'read',
  ls: 'read',
  cordis_inspect: 'read',
  grep: 'search',
  glob: 'search',
  write: 'edit',
  edit: 'edit',
  bash: 'execute',
  run_code: 'execute',
  web_fetch: 'fetch',
  WebFetch: 'fetch',
})

/** argument names that hold a path the call reads or writes */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path'] as const

const MAX_TITLE_CHARS = 200

// control characters and bidirectional overrides would let hostile text disguise itself on the client's screen
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
// a title is one line: a newline in it could push the real command out of sight
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** `text` with unsafe characters escaped as `\uXXXX` and cut at `max` characters. */
export function safeText(text: string, max: number, line = false): string {
  const clean = text.replace(line ? UNSAFE_IN_LINE : UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return clean.length > max ? `${clean.slice(0, max)}… (${clean.length - max} more characters)` : clean
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined)

export function toolKind(name: string, kinds: Readonly<Record<string, AcpToolKind>> = {}): AcpToolKind {
  if (Object.hasOwn(kinds, name)) return kinds[name]
  return Object.hasOwn(TOOL_KINDS, name) ? TOOL_KINDS[name] : 'other'
}

/** The paths a call names, absolute (relative ones against the workspace). */
export function toolLocations(exec: Execution, workspace: string): AcpToolCallLocation[] {
  const args = exec.arguments as Record<string, unknown>
  const seen = new Set<string>()
  for (const field of PATH_FIELDS) {
    const value = Object.hasOwn(args, field) ? str(args[field]) : undefined
    if (value !== undefined) seen.add(isAbsolute(value) ? resolve(value) : resolve(workspace, value))
  }
  if (exec.name === 'grep' || exec.name === 'glob' || exec.name === 'ls') {
    if (!seen.size) seen.add(resolve(workspace))
  }
  return [...seen].map((path) => ({ path }))
}

export function toolTitle(exec: Execution, locations: readonly AcpToolCallLocation[]): string {
  const args = exec.arguments as Record<string, unknown>
  const at = locations[0]?.path
  const field = (key: string) => (Object.hasOwn(args, key) ? str(args[key]) : undefined)
  let title: string
  switch (exec.name) {
    case 'bash': title = `Run: ${field('command') ?? '(no command)'}`; break
    case 'read': title = `Read ${at ?? '(no path)'}`; break
    case 'write': title = `Write ${at ?? '(no path)'}`; break
    case 'edit': title = `Edit ${at ?? '(no path)'}`; break
    case 'ls': title = `List ${at}`; break
    case 'grep': title = `Search for ${JSON.stringify(field('pattern') ?? '')} in ${at}`; break
    case 'glob': title = `Find files ${JSON.stringify(field('pattern') ?? '')} in ${at}`; break
    case 'run_code': title = 'Run a run_code program'; break
    default: title = `Call ${exec.name}${at ? ` on ${at}` : ''}`
  }
  return safeText(title, MAX_TITLE_CHARS, true)
}
