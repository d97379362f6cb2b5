import type { Context } from 'cordis'
import type { ContentBlock, ToolDefinition, ToolResult } from '@dsh/tools'
import { testTool, type TestKernel } from 'dsh/testing'

export function registerTools(k: TestKernel, ...defs: ToolDefinition[]) {
  return k.ctx.plugin({ name: 'fixture-tools', inject: ['tools'], apply: (ctx: Context) => { for (const d of defs) ctx.tools.register(d) } })
}

/** A tool that returns whatever `holder.output` holds when called. */
export function echoTool(name: string, holder: { output: string | ContentBlock[] }): ToolDefinition {
  return testTool(name, () => holder.output)
}

export function spillEvents(k: TestKernel, type: 'spill/written' | 'spill/failed') {
  return k.session.events().filter((e) => e.type === type).map((e) => e.data as any)
}

const MARKER = /\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/
const REFERENCE = /\n\[output truncated: (\d+) bytes; full text at (\/[^\n]+) — open it with read \{file_path, offset, limit\}\]$/

export interface ParsedSpill {
  head: string
  tail: string
  omitted: number
  bytes: number
  path: string
  link: Extract<ContentBlock, { type: 'resource_link' }>
  /** UTF-8 bytes the preview block and the link put inline */
  inline: number
  others: ContentBlock[]
}

/** Take a spilled result apart: preview block first, link last, anything else in between. */
export function parseSpill(result: ToolResult): ParsedSpill {
  const [first, ...rest] = result.content
  const link = rest.pop()
  if (first?.type !== 'text' || link?.type !== 'resource_link') throw new Error(`not a spilled result: ${JSON.stringify(result.content).slice(0, 200)}`)
  const ref = REFERENCE.exec(first.text)
  if (!ref) throw new Error(`no reference line in ${JSON.stringify(first.text.slice(-300))}`)
  const body = first.text.slice(0, ref.index)
  // the marker is searched from the end: the head itself might contain a look-alike
  const markerAt = body.lastIndexOf('\n[... ')
  const marker = MARKER.exec(body.slice(markerAt))
  if (markerAt < 0 || !marker) throw new Error('no omission line')
  const byteLength = (s: string) => Buffer.byteLength(s)
  return {
    head: body.slice(0, markerAt),
    tail: body.slice(markerAt + marker[0].length),
    omitted: Number(marker[1]),
    bytes: Number(ref[1]),
    path: ref[2],
    link,
    inline: byteLength(first.text) + byteLength(link.uri) + byteLength(link.name) + byteLength(link.mimeType ?? '') + byteLength(link.description ?? ''),
    others: rest,
  }
}
