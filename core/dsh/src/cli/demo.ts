/**
 * `dsh demo`: a real scripted session on embedded defaults in a temporary
 * workspace — code mode, a confined shell command, a write refused under
 * read-only, an approval, a spill and a hook denial — printed as a timeline.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernel } from '../kernel/kernel.js'
import { demoApprover, demoOptions, demoPolicy, steps } from './demo-script.js'
import { formatTimeline, painter, type Painter } from './timeline.js'

function summary(content: ReadonlyArray<{ type: string; text?: string }>): string {
  const text = content.filter((b) => b.type === 'text').map((b) => b.text).join(' ').replace(/\s+/g, ' ').trim()
  return text.length > 200 ? `${text.slice(0, 80)} … ${text.slice(-110)}` : text
}

export async function runDemo(out: NodeJS.WritableStream = process.stdout, colour = (out as any).isTTY === true): Promise<number> {
  const p: Painter = painter(colour)
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-demo-')))
  const workspace = join(root, 'workspace')
  mkdirSync(workspace)
  const write = (line = '') => out.write(line + '\n')
  const kernel = await createKernel(demoOptions(workspace, join(root, '.dsh')))
  let failures = 0
  try {
    kernel.ctx.plugin({ name: 'demo-policy', apply: demoPolicy })
    kernel.ctx.plugin({ name: 'demo-approver', apply: (ctx) => demoApprover(ctx, (tool) => write(p.yellow(`   ? approval asked for ${tool} — answered "allow once" automatically by the demo`))) })
    const session = kernel.openSession({ id: 'demo' })
    session.beginTurn()
    const backend = kernel.ctx.get('sandbox') ? await (kernel.ctx as any).sandbox.status?.() : undefined
    write(p.bold('dsh demo') + p.dim(` — a scripted session in ${workspace}`))
    if (backend?.chosen) write(p.dim(`sandbox backend: ${backend.chosen}`))
    for (const [index, step] of steps.entries()) {
      write(p.dim(`${index + 1}. ${step.say}`))
      const result = await kernel.execute({ callId: `demo-${index + 1}`, name: step.name, arguments: step.args(workspace), session })
      const outcome = result.isError ? result.error!.code : 'ok'
      if (outcome !== step.expect) {
        failures++
        write(p.red(`   (scripted to end ${step.expect}, ended ${outcome})`))
      }
      write(`   ${result.isError ? p.red(outcome) : p.green('ok')} ${summary(result.content)}`)
    }
    session.endTurn()
    await session.flush()
    write()
    write(p.bold('Audit timeline') + p.dim(` (${session.path})`))
    for (const line of formatTimeline(session.events(), p)) write('  ' + line)
    return failures ? 1 : 0
  } finally {
    await kernel.dispose()
    rmSync(root, { recursive: true, force: true })
  }
}
