/**
 * A tool as the model and the hosts see it: the definition's name, title, description, schemas
 * and annotations, without its body.
 */
import type { ToolDefinition } from './types.js'

/** The definition's fields the model and hosts see (`title`, `annotations`, `outputSchema` only when set). */
export type ToolSchema = Pick<ToolDefinition, 'name' | 'title' | 'description' | 'parameters' | 'annotations' | 'outputSchema'>

/** The frozen projection of a (frozen) definition: the optional fields only when set. */
export function projectSchema(def: ToolDefinition): ToolSchema {
  const schema: ToolSchema = { name: def.name, description: def.description, parameters: def.parameters }
  if (def.title !== undefined) schema.title = def.title
  if (def.annotations !== undefined) schema.annotations = Object.freeze({ ...def.annotations })
  if (def.outputSchema !== undefined) schema.outputSchema = def.outputSchema
  return Object.freeze(schema)
}
