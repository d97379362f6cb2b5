/** Argument validation with Ajv, never coercing, since arguments are logged as given; the meta-schema check generated ahead, since compiling it was the CLI's largest start-up cost (docs/architecture.md, The CLI's start-up and its bundle). */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Ajv as AjvClass, ValidateFunction } from 'ajv'
import { clipInput, quoteInput, snapshot } from '@dsh/kernel'
import { validate as validateDraft07 } from './json-schema-meta.generated.js'
import type { JsonSchema } from './types.js'

const require = createRequire(import.meta.url)
let instance: AjvClass | undefined

/**
 * Made on first use: a command may register tools and call none of them. `validateSchema: false`:
 * Ajv would compile the draft-07 meta-schema on the first compile to check the schema again (the
 * largest part of a tool's first call); every schema it compiles was checked by `schemaProblem`
 * first (at registration, and in `compileCheck`), and an explicit `validateSchema()` still checks.
 */
function ajv(): AjvClass {
  const { Ajv } = require('ajv') as typeof import('ajv')
  instance ??= new Ajv({
    strict: false,
    allErrors: false,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateSchema: false,
    addUsedSchema: false,
  })
  return instance
}

const DRAFT_07 = ['http://json-schema.org/draft-07/schema', 'http://json-schema.org/draft-07/schema#']

/** Why an object schema (a tool's `parameters` or `outputSchema`: `what`) is unusable, or undefined when it is fine. */
export function schemaProblem(schema: unknown, what = 'parameters'): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return `${what} must be a JSON Schema object`
  const type = (schema as JsonSchema).type
  if (type !== 'object') return `${what} must be an object schema (type: "object"), got type ${JSON.stringify(type)}`
  try {
    const meta = (schema as JsonSchema).$schema
    if (meta === undefined || DRAFT_07.includes(meta as string)) {
      if (validateDraft07(schema)) return undefined
      return `${what} is not a valid JSON Schema: ${ajv().errorsText((validateDraft07 as unknown as ValidateFunction).errors, { dataVar: 'schema' })}`
    }
    // another meta-schema: Ajv's own check (one it does not know is an error, as before)
    const checker = ajv()
    if (!checker.validateSchema(schema)) return `${what} is not a valid JSON Schema: ${checker.errorsText(checker.errors, { dataVar: 'schema' })}`
  } catch (error) {
    return `${what} is not a valid JSON Schema: ${(error as Error).message}`
  }
}

export type ArgumentCheck = (args: unknown) => string | undefined

/** A compiled `outputSchema`: the problem with a success value, or nothing */
export type OutputCheck = (value: unknown) => string | undefined

/**
 * The checks compiled so far, by what they check and the schema's JSON (hashed): tools whose
 * schemas are equal share one validator, and a tool registered again with the same schema (a
 * plugin reloaded) gets the one it had. Ajv keys its own cache by schema object and holds every
 * schema it compiled, with its validator, as long as the instance lives; keyed by content, that
 * is one per distinct schema, not one per registration. Only successful compiles are kept.
 */
const compiled = new Map<string, ArgumentCheck>()

/** The cache key of `schema`, or undefined when it is not plain JSON (then it is compiled alone). */
function keyOf(schema: JsonSchema, subject: string): string | undefined {
  let text: string
  try {
    text = JSON.stringify(snapshot(schema))
  } catch {
    return undefined
  }
  return `${subject}:${createHash('sha256').update(text).digest('base64')}`
}

/**
 * Compile a schema into a check returning a readable problem, or undefined;
 * `subject` names what is checked in the problem (`arguments`, `value`).
 * Equal schemas share one check (see `compiled`).
 */
export function compileCheck(schema: JsonSchema, subject = 'arguments'): ArgumentCheck {
  const key = keyOf(schema, subject)
  const known = key === undefined ? undefined : compiled.get(key)
  if (known) return known
  const what = subject === 'arguments' ? 'parameters' : 'output'
  // the meta-schema check Ajv itself no longer makes (a registered schema passed it already)
  const problem = schemaProblem(schema, `the tool's ${what} schema`)
  if (problem) return () => problem
  let validate: ValidateFunction
  try {
    validate = ajv().compile(schema)
  } catch (error) {
    const message = `the tool's ${what} schema cannot be compiled: ${(error as Error).message}`
    return () => message
  }
  const check: ArgumentCheck = (args) => {
    if (validate(args)) return undefined
    const error = validate.errors?.[0]
    if (!error) return subject === 'arguments' ? 'arguments do not match the schema' : `${subject} does not match the schema`
    // the path and the key are the caller's text: quoted, and cut (a key can be megabytes long)
    const where = error.instancePath ? `${subject}${clipInput(error.instancePath.replace(/\//g, '.'))}` : subject
    const extra = error.keyword === 'additionalProperties' ? ` (${quoteInput(String((error.params as any).additionalProperty))})` : ''
    return `${where} ${error.message ?? 'is invalid'}${extra}`
  }
  if (key !== undefined) compiled.set(key, check)
  return check
}
