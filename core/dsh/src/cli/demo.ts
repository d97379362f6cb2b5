/**
 * `dsh demo`: a real scripted session through the pipeline, on embedded
 * defaults, in a temporary workspace, printed as a timeline.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { createKernel } from '../kernel.js'
import { formatTimeline, painter, type Painter } from './timeline.js'

/** A plugin of demo tools and policies, the way a third party would write one. */
function demoPlugin(ctx: Context) {
  ctx.tools.register({
    name: 'greet',
    description: 'Greet someone by name.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    execute: (args) => ({ content: `Hello, ${args.name}!`, value: { greeted: args.name } }),
  })
  ctx.tools.register({
    name: 'delete_all',
    description: 'Pretend to delete everything.',
    parameters: { type: 'object' },
    execute: () => 'this never runs in the demo',
  })
  // a guard can only deny: nothing later in the pipeline can turn this into an allow
  ctx.tools.guard((exec) => (exec.name === 'delete_all' ? 'delete_all is forbidden by the demo guard' : undefined))
  // a listener trying to allow everything cannot override the guard
  ctx.on('tools/pre-execute', () => ({ kind: 'allow' }))
}

interface DemoStep {
  say: string
  name: string
  args: unknown
}

const steps: DemoStep[] = [
  { say: 'a valid call runs', name: 'greet', args: { name: 'world' } },
  { say: 'arguments that do not match the schema are refused before any policy runs', name: 'greet', args: { name: 42 } },
  { say: 'a guard denies, even though a listener said allow', name: 'delete_all', args: {} },
  { say: 'an unknown tool is refused, and still audited', name: 'rm_rf', args: { path: '/' } },
]

export async function runDemo(out: NodeJS.WritableStream = process.stdout, colour = (out as any).isTTY === true): Promise<number> {
  const p: Painter = painter(colour)
  const dir = mkdtempSync(join(tmpdir(), 'dsh-demo-'))
  const kernel = await createKernel({ dataDir: join(dir, '.dsh') })
  const write = (line = '') => out.write(line + '\n')
  try {
    kernel.ctx.plugin({ name: 'demo', inject: ['tools'], apply: demoPlugin })
    const session = kernel.openSession({ id: 'demo' })
    session.beginTurn()
    write(p.bold('dsh demo') + p.dim(` — a scripted session in ${dir}`))
    for (const [index, step] of steps.entries()) {
      write(p.dim(`${index + 1}. ${step.say}`))
      const result = await kernel.execute({ callId: `demo-${index + 1}`, name: step.name, arguments: step.args, session })
      write(`   ${result.isError ? p.red(result.error!.code) : p.green('ok')} ${result.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ')}`)
    }
    session.endTurn()
    write()
    write(p.bold('Audit timeline') + p.dim(` (${session.path})`))
    for (const line of formatTimeline(session.events(), p)) write('  ' + line)
    return 0
  } finally {
    await kernel.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
}
