/**
 * The JSON Schema validator the SDK client checks upstream results with
 * (`structuredContent` against a tool's `outputSchema`): the SDK's Ajv
 * provider, required when the first schema is compiled. Given explicitly
 * because dsh's CLI bundle replaces the SDK's default one with a module that
 * throws (it keeps Ajv out of every start), so a client made without one
 * could not connect from the CLI.
 */
import { createRequire } from 'node:module'
import type * as Ajv from '@modelcontextprotocol/sdk/validation/ajv'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'

const load = createRequire(import.meta.url)

export function resultValidator(): jsonSchemaValidator {
  let made: jsonSchemaValidator | undefined
  const provider = () => (made ??= new (load('@modelcontextprotocol/sdk/validation/ajv') as typeof Ajv).AjvJsonSchemaValidator())
  return { getValidator: (schema) => provider().getValidator(schema) }
}
