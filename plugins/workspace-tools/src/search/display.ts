/**
 * What grep and glob print: paths relative to the workspace (absolute for
 * a readable root outside it), lists cut at a number of entries and at a
 * number of bytes, and a note for whatever was left out or not searched.
 */
import { relative, sep } from 'node:path'
import { isInside } from '@dsh/sandbox'
import type { WalkStats } from './walk.js'

export function shownPath(workspace: string, real: string): string {
  if (!isInside(workspace, real)) return real
  return relative(workspace, real).split(sep).join('/') || '.'
}

export interface Cut {
  lines: string[]
  /** entries left out by the entry limit or the byte cap */
  omitted: number
}

/** The first `limit` lines (0: no limit) that fit in `maxBytes` with their newlines. */
export function cutLines(lines: readonly string[], limit: number, maxBytes: number): Cut {
  const kept: string[] = []
  let bytes = 0
  for (const line of limit > 0 ? lines.slice(0, limit) : lines) {
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > maxBytes) break
    kept.push(line)
    bytes += size
  }
  return { lines: kept, omitted: lines.length - kept.length }
}

/** The notes that follow a listing: what was cut and what the walk did not search. */
export function walkNotes(stats: WalkStats, extra: { omitted: number; unit: string; tooLarge?: number; maxBytes?: number; timeoutMs: number; maxFiles: number }): string[] {
  const notes: string[] = []
  if (extra.omitted) notes.push(`[${extra.omitted} more ${extra.unit} not shown; narrow the pattern or path, or raise head_limit]`)
  if (stats.stopped === 'deadline') notes.push(`[the search stopped at its ${extra.timeoutMs} ms limit after ${stats.files} files: results are incomplete; narrow path, glob or type]`)
  if (stats.stopped === 'max-files') notes.push(`[the search stopped after ${extra.maxFiles} files: results are incomplete; narrow path, glob or type]`)
  if (extra.tooLarge) notes.push(`[${extra.tooLarge} files over ${extra.maxBytes} bytes were not searched]`)
  if (stats.denied) notes.push(`[${stats.denied} entries the read policy refuses were skipped]`)
  if (stats.undecodable) notes.push(`[${stats.undecodable} entries whose names are not valid UTF-8 were skipped: results are incomplete; reach them with bash]`)
  return notes
}
