/**
 * The check of a success result against its tool's `outputSchema`, after
 * gate 4 (a listener's replacement value is checked too) and before finalize.
 * A tool that declares an output schema promises a JSON object matching it:
 * a missing value, a non-object or a mismatch turns the result into a
 * `TOOL_FAILED` error result, so no host ever sends a `structuredContent`
 * that contradicts the schema it advertised.
 */
import { errorResult } from './results.js'
import type { ToolEntry } from './registry.js'
import type { ToolResult } from './types.js'
import { compileCheck, type OutputCheck } from './validate.js'

function checkOf(entry: ToolEntry): OutputCheck {
  return (entry.outputCheck ??= compileCheck(entry.def.outputSchema!, 'value'))
}

/** `result` itself when it conforms (or is an error, or the tool declares no schema); else the error result. */
export function checkOutput(entry: ToolEntry | undefined, result: ToolResult): ToolResult {
  if (!entry?.def.outputSchema || result.isError) return result
  const value = result.value
  let problem: string | undefined
  if (value === undefined) problem = 'it returned no value'
  else if (value === null || typeof value !== 'object' || Array.isArray(value)) problem = `its value is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not an object`
  else problem = checkOf(entry)(value)
  if (!problem) return result
  return errorResult(result.callId, result.name, 'TOOL_FAILED', `${result.name} broke its outputSchema: ${problem}`, { kind: 'body', plugin: entry.ownerName, detail: 'outputSchema' })
}
