/**
 * Reading one settings file as a JSON object. What each plugin takes from the
 * object (hooks, permissions) is its own parser's business; this layer refuses
 * what no parser could use — a file that cannot be read, is not a regular
 * file, is not JSON, or is not an object — with an `INVALID_CONFIG` error
 * naming the file. A file that does not exist is not an error: it is `undefined`.
 */
import { readFileSync, statSync } from 'node:fs'
import { KernelError } from '@dsh/kernel'

export type SettingsDocument = Record<string, unknown>

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A short JSON rendering of a bad value, for error messages. */
export function show(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** The object of a settings file's text; `file` names it in errors. */
export function parseSettingsDocument(text: string, file: string): SettingsDocument {
  let document: unknown
  try {
    document = JSON.parse(text)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `${file}: not valid JSON: ${(error as Error).message}`, { cause: error, details: { file } })
  }
  if (!isObject(document)) {
    throw new KernelError('INVALID_CONFIG', `${file}: $: expected a settings object, got ${show(document)}`, { details: { file, path: '$' } })
  }
  return document
}

/** Read one settings file; `undefined` when it does not exist. */
export function readSettingsDocument(file: string): SettingsDocument | undefined {
  let text: string
  try {
    // a FIFO or a device at the path would block or never end
    if (!statSync(file).isFile()) throw new Error('not a regular file')
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new KernelError('INVALID_CONFIG', `${file}: cannot be read: ${(error as Error).message}`, { cause: error, details: { file } })
  }
  return parseSettingsDocument(text, file)
}
