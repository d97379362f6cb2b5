/**
 * A snapshot as a readable tree for a terminal (`dsh inspect`): one block per
 * section, owners in brackets, coloured when asked to be.
 */
import type { FilteredSnapshot } from './filter.js'
import { pluginTreeItems } from './plugin-tree.js'
import type { ListenerGroup, PluginInfo, RegistrySnapshot, SandboxInfo } from './types.js'

export interface TreeOptions {
  /** ANSI colours (for a TTY) */
  colour?: boolean
}

interface Paint {
  bold(s: string): string
  dim(s: string): string
  green(s: string): string
  red(s: string): string
  yellow(s: string): string
  cyan(s: string): string
}

const ansi = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`
const same = (s: string) => s

function paint(colour: boolean): Paint {
  if (!colour) return { bold: same, dim: same, green: same, red: same, yellow: same, cyan: same }
  return { bold: ansi(1, 22), dim: ansi(2, 22), green: ansi(32, 39), red: ansi(31, 39), yellow: ansi(33, 39), cyan: ansi(36, 39) }
}

/** Text from plugins and configs, on one line; a control character is shown as `\xNN`, never sent to the terminal. */
function clean(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const line = text.replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Tree lines: `├─`/`└─` before each child, `│ ` to continue under a non-last one. */
function branch(items: string[][], indent = ''): string[] {
  const out: string[] = []
  items.forEach((lines, index) => {
    const last = index === items.length - 1
    lines.forEach((line, i) => out.push(indent + (i === 0 ? (last ? '└─ ' : '├─ ') : last ? '   ' : '│  ') + line))
  })
  return out
}

function statusText(status: PluginInfo['status'], p: Paint): string {
  if (status === 'active') return p.green(status)
  if (status === 'failed') return p.red(status)
  return p.yellow(status)
}

function listenerLines(group: ListenerGroup, p: Paint): string[] {
  const head = `${p.bold(group.event)} ${p.dim(group.kind === 'waterfall' ? 'waterfall' : 'event')}${group.listeners.length ? '' : p.dim(' — none')}`
  const items = group.listeners.map((l) => [
    `${l.order}. ${p.cyan(`[${clean(l.owner)}]`)}${l.function ? ` ${clean(l.function)}` : ''}${l.prepend ? p.yellow(' prepend') : ''}${l.global ? p.dim(' global') : ''}`,
  ])
  return [head, ...branch(items)]
}

function sandboxLines(sandbox: SandboxInfo, p: Paint): string[] {
  const lines = [`chosen: ${sandbox.chosen ? p.green(sandbox.chosen) : p.yellow('none yet')}`]
  if (sandbox.defaults) {
    const d = sandbox.defaults
    lines.push(`defaults: mode ${d.mode}, network ${d.network}, workspace ${clean(d.workspace)}`)
  }
  for (const c of sandbox.candidates) {
    const probe = !c.runsHere
      ? p.dim(`not for ${process.platform}`)
      : !c.probe
        ? p.yellow('not probed')
        : c.probe.available
          ? p.green('✓ available') + (c.probe.path ? p.dim(` ${clean(c.probe.path)}`) : '') + (c.probe.reason ? p.dim(` — ${clean(c.probe.reason)}`) : '')
          : p.red('✗ unavailable') + (c.probe.reason ? ` — ${clean(c.probe.reason)}` : '')
    lines.push(`${p.bold(c.name)} ${p.dim(`(${c.source})`)} ${probe}`)
  }
  return lines
}

/** Each block: a title and its items (an item's first line is its head, the rest hang under it). */
function sectionBlocks(snap: FilteredSnapshot, p: Paint): Array<[string, string[][]]> {
  const blocks: Array<[string, string[][]]> = []
  const one = (lines: string[]) => lines.map((line) => [line])
  if (snap.tools) {
    blocks.push([`tools (${snap.tools.length})${snap.mode ? p.dim(` — mode ${snap.mode}`) : ''}`, one(snap.tools.map((t) => {
      const wire = (['native', 'code', 'both'] as const).filter((m) => t.visibility[m]).join('/')
      const facts = [t.concurrency, t.timeoutMs === null ? null : `timeout ${t.timeoutMs} ms`, t.hasPrompt ? 'prompt' : null, t.hasFinalizer ? 'finalizer' : null, `wire ${wire}`, t.wired ? null : 'not sent now']
      return `${p.bold(t.name)} ${p.cyan(`[${clean(t.owner)}]`)} ${p.dim(facts.filter(Boolean).join(', '))}`
    }))])
  }
  if (snap.listeners) blocks.push([`listeners`, snap.listeners.map((group) => listenerLines(group, p))])
  if (snap.guards) blocks.push([`guards (${snap.guards.length})`, one(snap.guards.map((g) => `${g.order}. ${p.cyan(`[${clean(g.owner)}]`)} ${clean(g.name ?? g.function ?? '')}`))])
  if (snap.prompt) {
    blocks.push([`prompt sections (${snap.prompt.length})`, one(snap.prompt.map((s) =>
      `${p.bold(clean(s.id))} ${p.cyan(`[${clean(s.owner)}]`)} ${p.dim(s.error ? `error: ${clean(s.error)}` : `order ${s.order}, ${s.chars} chars`)}`))])
  }
  if (snap.sandbox !== undefined) blocks.push(['sandbox', one(snap.sandbox ? sandboxLines(snap.sandbox, p) : [p.dim('no sandbox service')])])
  if (snap.approval !== undefined) {
    const a = snap.approval
    blocks.push(['approval', one(a
      ? [`policy ${p.bold(a.policy)}, preset ${a.preset ?? p.dim('none')}, timeout ${a.timeoutMs ?? '—'} ms`, p.dim(`presets: ${a.presets.map((x) => `${x.name} (${x.policy}, ${x.sandboxMode})`).join('; ')}`)]
      : [p.dim('no approval service')])])
  }
  if (snap.plugins) {
    const head = (pl: PluginInfo) => {
      const where = pl.spec && pl.spec !== pl.name ? p.dim(` ${clean(pl.spec)}`) : ''
      const kind = pl.source === 'host' ? p.dim(` (${pl.kind === 'service' ? 'service' : 'host'})`) : ''
      const config = JSON.stringify(pl.config)
      return `${p.bold(clean(pl.name))}${where}${kind} ${statusText(pl.status, p)}${pl.error ? p.red(` ${clean(pl.error)}`) : ''}${config && config !== '{}' && config !== 'null' ? p.dim(` ${clean(config)}`) : ''}`
    }
    // each plugin with what it owns and the plugins it plugged, under it
    blocks.push([`plugins (${snap.plugins.length})`, pluginTreeItems(snap, { clean: (text) => clean(text), head, dim: p.dim, cyan: p.cyan, branch: (items) => branch(items) })])
  }
  return blocks
}

/** The snapshot (or a filtered part of it) as lines of text, without a trailing newline. */
export function formatTree(snap: FilteredSnapshot | RegistrySnapshot, options: TreeOptions = {}): string {
  const p = paint(options.colour === true)
  const blocks = sectionBlocks(snap, p)
  const lines = [p.bold('dsh registry')]
  lines.push(...branch(blocks.map(([title, items]) => [p.bold(title), ...branch(items)])))
  return lines.join('\n')
}
