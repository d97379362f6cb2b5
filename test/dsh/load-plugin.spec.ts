import { afterEach, describe, expect, it } from 'vitest'
import { Service, type Context } from 'cordis'
import Schema from 'schemastery'
import { KernelError, loadPlugin as fromDsh } from 'dsh'
import { createTestKernel, loadPlugin, testTool, type TestKernel } from 'dsh/testing'
import { rejection } from '../rejection.js'

let k: TestKernel | undefined
afterEach(async () => {
  await k?.cleanup()
  k = undefined
})

const limited = {
  name: 'limited',
  inject: ['tools'],
  Config: Schema.object({
    word: Schema.string().required(),
    limits: Schema.object({ max: Schema.natural().default(3) }).default({ max: 3 }),
  }),
  apply(ctx: Context, config: { word: string; limits: { max: number } }) {
    ctx.tools.register(testTool('say', () => `${config.word} ×${config.limits.max}`))
  },
}


describe('loadPlugin(ctx, plugin, config?)', () => {
  it('is exported by dsh and dsh/testing alike', () => {
    expect(fromDsh).toBe(loadPlugin)
  })

  it('validates, plugs, and resolves once the plugin is active (defaults filled in); dispose removes it', async () => {
    k = await createTestKernel()
    const fork = await loadPlugin(k.ctx, limited, { word: 'hi' })
    expect(fork.isActive).toBe(true)
    expect((await k.call('say')).content).toEqual([{ type: 'text', text: 'hi ×3' }])
    fork.dispose()
    expect((await k.call('say')).error?.code).toBe('UNKNOWN_TOOL')
  })

  it('an unknown key is INVALID_CONFIG naming the plugin and the key path, and nothing is plugged', async () => {
    k = await createTestKernel()
    const error = await rejection(loadPlugin(k.ctx, limited, { word: 'hi', limits: { max: 2, mx: 1 } }))
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe('plugin limited: unknown key limits.mx')
    expect(k.ctx.tools.get('say')).toBeUndefined()
  })

  it('a value of the wrong type is INVALID_CONFIG naming the plugin and the path', async () => {
    k = await createTestKernel()
    const error = await rejection(loadPlugin(k.ctx, limited, { word: 'hi', limits: { max: 'lots' } }))
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toMatch(/^plugin limited: \$\.limits\.max expected number/)
    const missing = await rejection(loadPlugin(k.ctx, limited, {}))
    expect(missing.message).toBe('plugin limited: $.word missing required value')
    expect(k.ctx.tools.get('say')).toBeUndefined()
  })

  it('an apply that throws is PLUGIN_FAILED naming the plugin, and what it registered first is gone', async () => {
    k = await createTestKernel()
    const broken = {
      name: 'broken',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(testTool('half'))
        throw new Error('no database')
      },
    }
    const error = await rejection(loadPlugin(k.ctx, broken))
    expect(error.code).toBe('PLUGIN_FAILED')
    expect(error.message).toBe('plugin broken failed to start: no database')
    expect(k.ctx.tools.get('half')).toBeUndefined()
  })

  it('a missing required service is PLUGIN_FAILED naming it, and the plugin does not start later when it appears', async () => {
    k = await createTestKernel()
    let applied = 0
    const waiting = { name: 'waiting', inject: ['database'], apply() { applied++ } }
    const error = await rejection(loadPlugin(k.ctx, waiting))
    expect(error.code).toBe('PLUGIN_FAILED')
    expect(error.message).toBe('plugin waiting is waiting for service(s) database that is not running')
    class Database extends Service {
      constructor(ctx: Context) { super(ctx, 'database', true) }
    }
    k.ctx.plugin(Database)
    await k.ctx.lifecycle.flush()
    expect(applied).toBe(0)
  })

  it('a function plugin without a Config gets the config as given', async () => {
    k = await createTestKernel()
    let seen: unknown
    function plain(_ctx: Context, config: unknown) { seen = config }
    await loadPlugin(k.ctx, plain, { any: 'thing' })
    expect(seen).toEqual({ any: 'thing' })
  })
})
