/**
 * An upstream result as a dsh tool output: the content blocks dsh has kept
 * as they are (text, image, resource_link), the others described in text
 * (audio) or reduced to what dsh can carry (an embedded resource: its text,
 * or a link to it); `structuredContent` as `value`; `isError` as a failure
 * carrying the server's text. A result over `maxResultBytes` is an error,
 * not a truncated success.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { JsonValue } from '@dsh/kernel'
import type { ContentBlock, ToolOutput } from '@dsh/tools'

type UpstreamBlock = CallToolResult['content'][number]

function block(b: UpstreamBlock): ContentBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text }
    case 'image':
      return { type: 'image', data: b.data, mimeType: b.mimeType }
    case 'resource_link':
      return { type: 'resource_link', uri: b.uri, name: b.name, ...(b.mimeType ? { mimeType: b.mimeType } : {}), ...(b.description ? { description: b.description } : {}) }
    case 'audio':
      return { type: 'text', text: `[audio ${b.mimeType}, ${Math.floor((b.data.length * 3) / 4)} bytes, not shown]` }
    case 'resource': {
      const r = b.resource
      if ('text' in r && typeof r.text === 'string') return { type: 'text', text: r.text }
      return { type: 'resource_link', uri: r.uri, name: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}) }
    }
    default:
      return { type: 'text', text: JSON.stringify(b) }
  }
}

function size(result: CallToolResult): number {
  let bytes = 0
  for (const b of result.content ?? []) {
    if (b.type === 'text') bytes += b.text.length
    else if (b.type === 'image' || b.type === 'audio') bytes += b.data.length
    else bytes += JSON.stringify(b).length
  }
  if (result.structuredContent !== undefined) bytes += JSON.stringify(result.structuredContent).length
  return bytes
}

export function toOutput(server: string, tool: string, result: CallToolResult, maxResultBytes: number): ToolOutput {
  const bytes = size(result)
  if (bytes > maxResultBytes) {
    throw new Error(`MCP server ${server} answered ${tool} with ${bytes} bytes, over mcp-servers maxResultBytes (${maxResultBytes}); the result is dropped`)
  }
  const content = (result.content ?? []).map(block)
  if (result.isError) {
    const text = content.map((b) => (b.type === 'text' ? b.text : '')).filter(Boolean).join('\n')
    throw new Error(`MCP server ${server}: ${tool} failed${text ? `: ${text}` : ' (no message)'}`)
  }
  return result.structuredContent !== undefined ? { content, value: result.structuredContent as JsonValue } : { content }
}
