/**
 * Building and normalising tool results. Tool outcomes are data: every failure
 * becomes an error result with a closed code.
 */
import type { JsonValue, ResultErrorCode } from '@dsh/kernel'
import { capErrorText, deepFreeze, ERROR_TEXT_LIMIT, snapshot } from '@dsh/kernel'
import type { ContentBlock, ErrorSource, ToolOutput, ToolResult } from './types.js'

export function errorResult(callId: string, name: string, code: ResultErrorCode, message: string, source?: ErrorSource): ToolResult {
  // Why a cap: a message that echoes a caller's 9 MB argument would be a 9 MB answer (text and error both)
  if (message.length > ERROR_TEXT_LIMIT) message = capErrorText(message)
  return { callId, name, isError: true, content: [{ type: 'text', text: message }], error: source ? { code, message, source } : { code, message } }
}

/**
 * Who decided a failure, for a person: "guard lockfile-guard of plugin locks",
 * "rule Bash(git push:*) of plugin claude-code-permissions", "hook
 * ./check.sh of plugin hooks-claude-code", "the tools/pre-execute listener of
 * plugin policy", "approval asked by guard noPush of plugin git", "prepare".
 */
export function describeSource(source: ErrorSource): string {
  const of = source.plugin !== undefined ? ` of plugin ${source.plugin}` : ''
  const detail = source.detail
  switch (source.kind) {
    case 'rule': return `rule ${detail ?? '(unnamed)'}${of}`
    case 'hook': return `hook ${detail ?? '(settings)'}${of}`
    case 'guard': return `guard ${detail ?? '(anonymous)'}${of}`
    case 'mode': return `mode${detail ? ` ${detail}` : ''}${of}`
    case 'pre-execute': return `the tools/pre-execute listener${of}${detail ? ` (${detail})` : ''}`
    case 'post-execute': return `the tools/post-execute listener${of}${detail ? ` (${detail})` : ''}`
    // the detail of an approval is who asked for it
    case 'approval': return detail ? `approval asked by ${detail}` : `approval${of}`
    case 'body': return `the tool's body${of}${detail ? ` (${detail})` : ''}`
    case 'sandbox': return `the sandbox${of}${detail ? ` (${detail})` : ''}`
    default: return `${source.kind}${detail ? ` (${detail})` : ''}${of}`
  }
}

function checkBlock(block: unknown, index: number): ContentBlock {
  const b = block as Record<string, unknown>
  const where = `content[${index}]`
  if (!b || typeof b !== 'object') throw new TypeError(`${where} is not an object`)
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') throw new TypeError(`${where}.text must be a string`)
      return { type: 'text', text: b.text }
    case 'image':
      if (typeof b.data !== 'string' || typeof b.mimeType !== 'string') throw new TypeError(`${where} (image) needs string data and mimeType`)
      return { type: 'image', data: b.data, mimeType: b.mimeType }
    case 'resource_link': {
      if (typeof b.uri !== 'string' || typeof b.name !== 'string') throw new TypeError(`${where} (resource_link) needs string uri and name`)
      const link: ContentBlock = { type: 'resource_link', uri: b.uri, name: b.name }
      if (typeof b.mimeType === 'string') link.mimeType = b.mimeType
      if (typeof b.description === 'string') link.description = b.description
      return link
    }
    default:
      throw new TypeError(`${where} has unknown type ${JSON.stringify(b.type)}`)
  }
}

export function normalizeContent(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content)) throw new TypeError('content must be a string or an array of content blocks')
  return content.map(checkBlock)
}

/** Turn what a body returned into a success result; throws TypeError when malformed. */
export function outputToResult(callId: string, name: string, output: ToolOutput): ToolResult {
  if (typeof output === 'string' || Array.isArray(output)) {
    return { callId, name, isError: false, content: normalizeContent(output) }
  }
  if (output === null || typeof output !== 'object') {
    throw new TypeError(`the tool returned ${output === null ? 'null' : typeof output}, not a string, content blocks or { content, value }`)
  }
  const result: ToolResult = { callId, name, isError: false, content: [] }
  if (output.value !== undefined) {
    result.value = snapshot<JsonValue>(output.value)
  }
  if (output.content !== undefined) result.content = normalizeContent(output.content)
  else if (output.value !== undefined) result.content = [{ type: 'text', text: JSON.stringify(result.value) }]
  return result
}

const KEYS = new Set(['callId', 'name', 'isError', 'content', 'value', 'error'])

/** Validate a result a listener produced; throws TypeError when malformed. */
export function checkResult(candidate: unknown): ToolResult {
  const r = candidate as ToolResult
  if (!r || typeof r !== 'object') throw new TypeError('not an object')
  for (const key of Object.keys(r)) if (!KEYS.has(key)) throw new TypeError(`unknown result key ${JSON.stringify(key)}`)
  if (typeof r.isError !== 'boolean') throw new TypeError('isError must be a boolean')
  const result: ToolResult = { callId: r.callId, name: r.name, isError: r.isError, content: normalizeContent(r.content) }
  if (r.value !== undefined) result.value = snapshot<JsonValue>(r.value)
  if (r.error !== undefined) {
    if (!r.error || typeof r.error.code !== 'string' || typeof r.error.message !== 'string') throw new TypeError('error must be { code, message }')
    result.error = { code: r.error.code, message: r.error.message }
  }
  return result
}

/** The text of a result's content blocks, joined. */
export function resultText(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
}

/**
 * Freeze a result all the way down: its content blocks, its error and its
 * value, also when an earlier step froze only the top (gate 4 does, so no
 * listener can flip `isError` in place).
 */
export function freezeResult(result: ToolResult): ToolResult {
  for (const block of result.content) Object.freeze(block)
  Object.freeze(result.content)
  if (result.error) {
    if (result.error.source) Object.freeze(result.error.source)
    Object.freeze(result.error)
  }
  if (result.value !== undefined) deepFreeze(result.value)
  return Object.freeze(result)
}
