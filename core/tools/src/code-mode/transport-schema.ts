/**
 * `run_code` as the model is sent it (`wireSchemas()`): its description ends
 * with the SDK declarations of what a program may call, so a client that reads
 * only the tool list still learns them; and its annotations are what its
 * programs can do — read-only only when every callable tool is, open-world
 * when any is (a tool without hints counts as MCP's defaults: it may write,
 * destroy and reach the outside world).
 */
import type { ToolSchema } from '../tool-schema.js'
import type { ToolAnnotations } from '../types.js'
import { generateSdk } from './sdk.js'

export function transportSchema(own: ToolSchema, callable: readonly ToolSchema[]): ToolSchema {
  const readOnly = callable.every((s) => s.annotations?.readOnlyHint === true)
  const annotations: ToolAnnotations = {
    readOnlyHint: readOnly,
    ...(readOnly ? {} : { destructiveHint: callable.some((s) => s.annotations?.readOnlyHint !== true && s.annotations?.destructiveHint !== false), idempotentHint: false }),
    openWorldHint: callable.some((s) => s.annotations?.openWorldHint !== false),
  }
  return Object.freeze({
    ...own,
    description: `${own.description}\n\n\`\`\`ts\n${generateSdk(callable)}\n\`\`\``,
    annotations: Object.freeze({ ...annotations, ...own.annotations }),
  })
}
