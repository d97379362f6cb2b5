/**
 * Argument validation with Ajv. A schema is checked against the JSON Schema
 * meta-schema when the tool is registered (cheap; a bad schema is refused
 * then) and compiled on the tool's first call, once; the compiled validator is
 * kept with the tool. Ajv never coerces, removes or defaults anything here:
 * arguments are validated, never rewritten, since they were logged as given.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import type { JsonSchema } from './types.js'

let instance: Ajv | undefined

/** Made on first use: compiling the meta-schema is a good part of the CLI's start-up, and a command may register no tool. */
function ajv(): Ajv {
  instance ??= new Ajv({
    strict: false,
    allErrors: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateSchema: true,
    addUsedSchema: false,
  })
  return instance
}

/** Why an object schema (a tool's `parameters` or `outputSchema`: `what`) is unusable, or undefined when it is fine. */
export function schemaProblem(schema: unknown, what = 'parameters'): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return `${what} must be a JSON Schema object`
  const type = (schema as JsonSchema).type
  if (type !== 'object') return `${what} must be an object schema (type: "object"), got type ${JSON.stringify(type)}`
  try {
    const checker = ajv()
    if (!checker.validateSchema(schema)) return `${what} is not a valid JSON Schema: ${checker.errorsText(checker.errors, { dataVar: 'schema' })}`
  } catch (error) {
    return `${what} is not a valid JSON Schema: ${(error as Error).message}`
  }
}

export type ArgumentCheck = (args: unknown) => string | undefined

/**
 * Compile a schema into a check returning a readable problem, or undefined;
 * `subject` names what is checked in the problem (`arguments`, `value`).
 */
export function compileCheck(schema: JsonSchema, subject = 'arguments'): ArgumentCheck {
  let validate: ValidateFunction
  try {
    validate = ajv().compile(schema)
  } catch (error) {
    const message = `the tool's ${subject === 'arguments' ? 'parameters' : 'output'} schema cannot be compiled: ${(error as Error).message}`
    return () => message
  }
  return (args) => {
    if (validate(args)) return undefined
    const error = validate.errors?.[0]
    if (!error) return subject === 'arguments' ? 'arguments do not match the schema' : `${subject} does not match the schema`
    const where = error.instancePath ? `${subject}${error.instancePath.replace(/\//g, '.')}` : subject
    const extra = error.keyword === 'additionalProperties' ? ` (${JSON.stringify((error.params as any).additionalProperty)})` : ''
    return `${where} ${error.message ?? 'is invalid'}${extra}`
  }
}
