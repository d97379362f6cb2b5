/**
 * A pipeline result as an MCP `CallToolResult`. The content is the pipeline's,
 * unchanged; a JSON-object `value` of a success also goes out as
 * `structuredContent` (MCP 2025-06-18 and later; older clients ignore it); an
 * error result carries its code, message and source under `_meta["dsh/error"]`,
 * and a last text line naming who decided it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { describeSource, type ToolResult } from '@dsh/tools'

export const ERROR_META_KEY = 'dsh/error'

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

export function toCallToolResult(result: ToolResult): CallToolResult {
  const out: CallToolResult = {
    content: result.content.map((block) => ({ ...block })) as CallToolResult['content'],
    isError: result.isError,
  }
  // structuredContent must be an object; arrays and scalars stay in the content's JSON text
  if (!result.isError && isJsonObject(result.value)) out.structuredContent = result.value
  if (result.error) out._meta = { [ERROR_META_KEY]: result.error.source ? { code: result.error.code, message: result.error.message, source: { ...result.error.source } } : { code: result.error.code, message: result.error.message } }
  // who decided, in the text a client shows (the content stays the pipeline's, with this line after it)
  if (result.error?.source) out.content.push({ type: 'text', text: `(decided by ${describeSource(result.error.source)})` })
  return out
}
