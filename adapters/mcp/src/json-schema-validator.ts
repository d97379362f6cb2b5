/**
 * The JSON Schema validator the MCP server is given (the SDK checks an
 * elicitation's answer against the form's schema with it): the SDK's own Ajv
 * validator, made on its first use instead of with the server. Making it (Ajv
 * and its formats) at start cost `dsh mcp` a tenth of its time before the
 * first answer, for a check most connections never make.
 */
import { createRequire } from 'node:module'
import type * as AjvProvider from '@modelcontextprotocol/sdk/validation/ajv'
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'

const require = createRequire(import.meta.url)

export function lazyJsonSchemaValidator(): jsonSchemaValidator {
  let inner: jsonSchemaValidator | undefined
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      inner ??= new (require('@modelcontextprotocol/sdk/validation/ajv') as typeof AjvProvider).AjvJsonSchemaValidator()
      return inner.getValidator<T>(schema)
    },
  }
}
