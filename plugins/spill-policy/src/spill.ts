/**
 * Spilling one result: all its text, joined with newlines, is written whole to
 * a spill file; inline, the text blocks are replaced by one block holding a
 * head/tail preview and a reference line, and a `resource_link` to the file is
 * appended. Non-text blocks stay, in order, after the preview. Preview,
 * reference and link together take at most `maxInlineBytes` UTF-8 bytes.
 *
 * Nothing here may fail the call: any problem (no directory, a full disk, a
 * limit too small for the reference) leaves the result exactly as it was and
 * appends `spill/failed` with the reason.
 */
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describeError } from '@dsh/kernel'
import type { ContentBlock, Execution, ToolResult } from '@dsh/tools'
import { preview } from './preview.js'
import { createSpillFile, discardSpillFile, writeSpillFile } from './spill-file.js'

declare module '@dsh/kernel' {
  interface SessionEvents {
    /** a result's text was written to `path` (`bytes` UTF-8 bytes) and replaced by a preview */
    'spill/written': { callId: string; path: string; bytes: number }
    /** a result's text could not be spilled and was left inline; `reason` says why */
    'spill/failed': { callId: string; reason: string; bytes: number }
  }
}

type LinkBlock = Extract<ContentBlock, { type: 'resource_link' }>

/** The reference line that ends the preview: the size and where `read` finds the whole text. */
export function referenceLine(bytes: number, path: string): string {
  return `[output truncated: ${bytes} bytes; full text at ${path} — open it with read {file_path, offset, limit}]`
}

/** UTF-8 bytes a content block puts inline (for a link: every string it carries). */
export function inlineBytes(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return Buffer.byteLength(block.text)
    case 'resource_link':
      return Buffer.byteLength(block.uri) + Buffer.byteLength(block.name)
        + Buffer.byteLength(block.mimeType ?? '') + Buffer.byteLength(block.description ?? '')
    default:
      return 0
  }
}

/**
 * Whether the text of `content` exceeds `max` UTF-8 bytes. A UTF-16 code unit
 * is 1 to 3 UTF-8 bytes, so the lengths decide most cases without encoding.
 */
export function exceeds(content: readonly ContentBlock[], max: number): boolean {
  let units = 0
  for (const block of content) if (block.type === 'text') units += block.text.length
  if (units * 3 <= max) return false
  if (units > max) return true
  let bytes = 0
  for (const block of content) if (block.type === 'text') bytes += Buffer.byteLength(block.text)
  return bytes > max
}

async function failed(exec: Execution, result: ToolResult, bytes: number, reason: string): Promise<ToolResult> {
  await exec.session.append('spill/failed', { callId: exec.callId, reason, bytes }).catch(() => {})
  return result
}

export async function spill(exec: Execution, result: ToolResult, max: number): Promise<ToolResult> {
  const texts: string[] = []
  const others: ContentBlock[] = []
  for (const block of result.content) {
    if (block.type === 'text') texts.push(block.text)
    else others.push(block)
  }
  // UTF-8 cannot hold a lone surrogate: encoding writes U+FFFD in its place
  const bytes = Buffer.from(texts.join('\n'), 'utf8')
  try {
    let file
    try {
      file = await createSpillFile(exec.session, exec.callId)
    } catch (error) {
      return await failed(exec, result, bytes.length, describeError(error))
    }
    const link: LinkBlock = { type: 'resource_link', uri: pathToFileURL(file.path).href, name: basename(file.path), mimeType: 'text/plain' }
    const reference = referenceLine(bytes.length, file.path)
    const linkSize = inlineBytes(link)
    const shown = preview(bytes, max - linkSize - Buffer.byteLength(reference) - 1)
    const text = shown && `${shown.text}\n${reference}`
    // the inline budget is checked, not assumed: over it, nothing is replaced
    if (!text || Buffer.byteLength(text) + linkSize > max) {
      await discardSpillFile(file.path, file.handle)
      return await failed(exec, result, bytes.length, `maxInlineBytes ${max} cannot hold a preview and the reference to ${file.path}`)
    }
    try {
      await writeSpillFile(file.path, file.handle, bytes)
    } catch (error) {
      return await failed(exec, result, bytes.length, describeError(error))
    }
    await exec.session.append('spill/written', { callId: exec.callId, path: file.path, bytes: bytes.length }).catch(() => {})
    return { ...result, content: [{ type: 'text', text }, ...others, link] }
  } catch (error) {
    return failed(exec, result, bytes.length, `unexpected: ${describeError(error)}`)
  }
}
