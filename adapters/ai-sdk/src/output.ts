/**
 * What a pipeline result becomes on the AI SDK's side: a success returns the
 * result's `value` when it has one, else its text; an error result is thrown
 * as a `KernelError` whose message starts with the code, so the SDK's
 * `tool-error` part — and the error text the model is sent — carry both.
 */
import { KernelError, type ContentBlock, type ToolResult } from 'dsh'

/** The text of a result's content; blocks a text cannot hold are named in one line each. */
export function resultText(content: readonly ContentBlock[]): string {
  return content.map((block) => {
    if (block.type === 'text') return block.text
    if (block.type === 'image') return `[image ${block.mimeType}, ${block.data.length} base64 characters, not shown]`
    if (block.type === 'resource_link') return `[resource ${block.name}: ${block.uri}]`
    return `[${(block as { type: string }).type} content, not shown]`
  }).join('\n')
}

/** The error an error result is thrown as. */
export function resultError(result: ToolResult): KernelError {
  const code = result.error?.code ?? 'TOOL_FAILED'
  const message = result.error?.message ?? (resultText(result.content) || `${result.name} failed`)
  return new KernelError(code, `${code}: ${message}`, { details: { callId: result.callId, name: result.name } })
}

/** The tool's output for the SDK, or the thrown error. */
export function toolOutput(result: ToolResult): unknown {
  if (result.isError) throw resultError(result)
  return result.value !== undefined ? result.value : resultText(result.content)
}
