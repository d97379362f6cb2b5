/**
 * The attribute and event names the plugin writes: the OpenTelemetry GenAI
 * conventions for tool execution, then dsh's own. One place, so the README,
 * the tests and the spans agree.
 */

/** GenAI semantic conventions (execute_tool span) */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name'
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name'
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id'
export const GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments'
export const GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result'
export const ERROR_TYPE = 'error.type'
export const EXECUTE_TOOL = 'execute_tool'

/** dsh's attributes */
export const DSH_SESSION_ID = 'dsh.session.id'
export const DSH_CALL_PARENT = 'dsh.call.parent'
export const DSH_DECISION = 'dsh.decision'
export const DSH_DECISION_BY = 'dsh.decision.by'
/** the plugin (cordis name) that decided a denial: `error.source.plugin` */
export const DSH_DECISION_PLUGIN = 'dsh.decision.plugin'
export const DSH_APPROVAL_OUTCOME = 'dsh.approval.outcome'
export const DSH_APPROVAL_GRANT = 'dsh.approval.grant'
export const DSH_APPROVAL_BY = 'dsh.approval.by'
export const DSH_APPROVAL_WAIT_MS = 'dsh.approval.wait_ms'
export const DSH_APPROVAL_SANDBOX_MODE = 'dsh.approval.sandbox_mode'
export const DSH_SANDBOX_BACKEND = 'dsh.sandbox.backend'
export const DSH_SANDBOX_ENFORCEMENT = 'dsh.sandbox.enforcement'
export const DSH_SANDBOX_UNENFORCED = 'dsh.sandbox.unenforced'
export const DSH_SANDBOX_MODE = 'dsh.sandbox.mode'
export const DSH_TRUNCATED = 'dsh.truncated'

/** the span event of an approval wait */
export const DSH_APPROVAL_EVENT = 'dsh.approval'

/** The span name of a call, as the conventions have it: `execute_tool <tool name>`. */
export function spanName(tool: string): string {
  return `${EXECUTE_TOOL} ${tool}`
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, on a character boundary;
 * `undefined` when it already fits.
 */
export function cutToBytes(text: string, maxBytes: number): string | undefined {
  // a UTF-16 unit is at most 3 UTF-8 bytes: most texts are decided without encoding them
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return undefined
  const bytes = Buffer.from(text, 'utf8')
  let end = maxBytes
  // back off to the first byte of the character the limit falls inside
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--
  return bytes.toString('utf8', 0, end)
}
