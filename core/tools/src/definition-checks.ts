/**
 * Checks of a definition's optional descriptive fields, at registration: the
 * MCP annotations (known keys, booleans) and the output schema (an object
 * schema, since MCP's `structuredContent` is always an object).
 */
import type { ToolAnnotations } from './types.js'
import { schemaProblem } from './validate.js'

const ANNOTATION_KEYS: ReadonlySet<string> = new Set<keyof ToolAnnotations>(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])

/** Why `annotations` is unusable, or undefined. */
export function annotationsProblem(annotations: unknown): string | undefined {
  if (annotations === undefined) return
  if (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations)) return 'annotations must be an object'
  for (const [key, value] of Object.entries(annotations)) {
    if (!ANNOTATION_KEYS.has(key)) return `annotations.${key} is not a known annotation (${[...ANNOTATION_KEYS].join(', ')})`
    if (typeof value !== 'boolean') return `annotations.${key} must be a boolean, got ${JSON.stringify(value) ?? typeof value}`
  }
}

/** Why `outputSchema` is unusable, or undefined. */
export function outputSchemaProblem(schema: unknown): string | undefined {
  if (schema === undefined) return
  return schemaProblem(schema, 'outputSchema')
}
