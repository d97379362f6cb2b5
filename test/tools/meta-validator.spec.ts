import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Ajv } from 'ajv'
// the schema check is private to @dsh/tools: tested here on purpose
import { schemaProblem } from '../../core/tools/src/validate.js'

const SCRIPT = fileURLToPath(new URL('../../core/tools/scripts/build-meta-validator.js', import.meta.url))

/** What schemaProblem said before the generated validator: a fresh Ajv with validate.ts's options. */
const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: true, addUsedSchema: false, logger: false })
function ajvProblem(schema: Record<string, unknown>): string | undefined {
  try {
    if (!ajv.validateSchema(schema)) return `parameters is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`
  } catch (error) {
    return `parameters is not a valid JSON Schema: ${(error as Error).message}`
  }
}

describe('the generated draft-07 meta-schema validator', () => {
  it('is what the installed Ajv generates (rerun the script after an Ajv upgrade)', () => {
    expect(() => execFileSync(process.execPath, [SCRIPT, '--check'], { stdio: 'pipe' })).not.toThrow()
  })

  const cases: Array<[string, Record<string, unknown>]> = [
    ['a plain object schema', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    ['an unknown type name', { type: 'object', properties: { a: { type: 'nonsense' } } }],
    ['required not an array', { type: 'object', required: 'a' }],
    ['a negative minLength', { type: 'object', properties: { a: { type: 'string', minLength: -1 } } }],
    ['an empty enum', { type: 'object', properties: { a: { enum: [] } } }],
    ['a non-unique required list', { type: 'object', required: ['a', 'a'] }],
    ['nested refs and definitions', { type: 'object', definitions: { n: { type: 'integer', minimum: 0 } }, properties: { a: { $ref: '#/definitions/n' } } }],
    ['additionalProperties not a schema', { type: 'object', additionalProperties: 3 }],
    ['a draft-07 $schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 7 } } }],
    ['a $schema Ajv does not know', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }],
    ['a $schema that is not a string', { $schema: 7, type: 'object' }],
    ['unknown keywords (strict off)', { type: 'object', 'x-extra': { anything: true }, properties: { a: { type: 'string', format: 'no-such-format' } } }],
  ]
  for (const [what, schema] of cases) {
    it(`answers as Ajv's validateSchema for ${what}`, () => {
      expect(schemaProblem(schema)).toBe(ajvProblem(schema))
    })
  }

  it('answers as Ajv does for arbitrary JSON under an object schema\'s keywords', () => {
    const keyword = fc.constantFrom('properties', 'required', 'items', 'enum', 'minLength', 'maximum', 'additionalProperties', 'anyOf', 'pattern', 'const', 'type', 'dependencies', 'if', 'format', 'default')
    const schema = fc.dictionary(keyword, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }).map((rest) => ({ ...rest, type: 'object' }))
    const seen = { valid: 0, invalid: 0 }
    fc.assert(fc.property(schema, (s) => {
      const problem = ajvProblem(s)
      seen[problem === undefined ? 'valid' : 'invalid']++
      expect(schemaProblem(s)).toBe(problem)
    }), { numRuns: 500 })
    // both answers were compared, not only one
    expect(seen.valid).toBeGreaterThan(10)
    expect(seen.invalid).toBeGreaterThan(10)
  })
})
