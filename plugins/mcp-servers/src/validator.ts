/**
 * The JSON Schema validator the SDK client is given: one that accepts, so an
 * upstream `structuredContent` is checked once, by the pipeline, against the
 * `outputSchema` the tool was registered with (`@dsh/tools` output-check: a
 * missing value, a non-object or a mismatch ends the call `TOOL_FAILED`).
 * The SDK's own check (Ajv) would run first on every call, on the same value
 * against the same schema, and compile every tool's schema at `tools/list`.
 * The SDK still refuses a result without `structuredContent` from a tool that
 * declares an `outputSchema` before asking the validator.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'

const ACCEPT = (input: unknown) => ({ valid: true as const, data: input as any, errorMessage: undefined })

export function pipelineChecksResults(): jsonSchemaValidator {
  return { getValidator: () => ACCEPT }
}
