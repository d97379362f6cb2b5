// Config inference: a schemastery schema gives both the type apply receives
// (defaults filled in) and the type ctx.plugin accepts (keys with defaults optional).
import { Context } from 'cordis'
import Schema from 'schemastery'
import { describe, expectTypeOf, it } from 'vitest'
import * as denyPattern from '../../docs/examples/deny-pattern/src/index.js'
import * as tour from '../../docs/examples/tour/src/index.js'

declare const ctx: Context

describe('Config inferred from Schema.object', () => {
  it('is what apply receives', () => {
    expectTypeOf<Parameters<typeof denyPattern.apply>[1]>().toEqualTypeOf<denyPattern.Config>()
    expectTypeOf<denyPattern.Config['patterns']>().toEqualTypeOf<string[]>()
    expectTypeOf<denyPattern.Config['tools']>().toEqualTypeOf<string[]>()
    expectTypeOf<tour.Config['timeoutMs']>().toEqualTypeOf<number>()
    expectTypeOf<tour.Config['ask']>().not.toEqualTypeOf<string>()
  })

  it('checks the config ctx.plugin is given, with defaults optional', () => {
    ctx.plugin(denyPattern, { patterns: ['x'] })
    ctx.plugin(denyPattern, { patterns: ['x'], tools: ['sh'] })
    ctx.plugin(tour, {})
    // @ts-expect-error: patterns is a list of strings
    ctx.plugin(denyPattern, { patterns: 'x' })
    // @ts-expect-error: timeoutMs is a number
    ctx.plugin(tour, { timeoutMs: '10' })
  })

  it('Schema<T> annotated by hand must match the interface', () => {
    interface Config { limit: number }
    const ok: Schema<Config> = Schema.object({ limit: Schema.number().required() })
    expectTypeOf(ok).returns.toEqualTypeOf<Config>()
    // @ts-expect-error: the schema's limit is a string
    const bad: Schema<Config> = Schema.object({ limit: Schema.string().required() })
    void bad
  })
})
