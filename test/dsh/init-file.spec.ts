// The dsh.yml `dsh init` writes: it loads, and gives the same kernel as the
// built-in default set; and it holds every key of every service and bundled
// plugin, each commented out at its default, one `# ` away from valid YAML
// at the right place.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { afterEach, describe, expect, it } from 'vitest'
import { canonicalJson } from '@dsh/kernel'
import { createKernel, type Kernel } from 'dsh'
// `dsh init`'s file, the config reference and the default set are private to dsh: tested here on purpose
import { initFileText } from '../../core/dsh/src/cli/init-command.js'
import { pluginSections, serviceSections } from '../../core/dsh/src/config/reference.js'
import { defaultSet, DEFAULT_PLUGINS } from '../../core/dsh/src/config/default-set.js'

const kernels: Kernel[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.dispose()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function written(): Promise<{ file: string; text: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-init-'))
  dirs.push(dir)
  const file = join(dir, 'dsh.yml')
  const text = await initFileText()
  writeFileSync(file, text)
  return { file, text }
}

/** What makes two kernels the same to a user: plugins and configs, tools, and the services' settings. */
function shape(k: Kernel) {
  return {
    plugins: k.plugins().map((p) => [p.spec, canonicalJson(p.config)]),
    tools: k.ctx.tools.schemas().map((s) => canonicalJson(s)),
    prompt: k.ctx.systemPrompt.sections().map((s) => s.id),
    mode: k.ctx.tools.mode,
    approval: [k.ctx.approval.settings.policy, k.ctx.approval.settings.timeoutMs],
    sandbox: canonicalJson(k.ctx.sandbox.defaults as any),
  }
}

describe('dsh init\'s file', () => {
  it('loads, and gives the same kernel as the built-in default set', async () => {
    const { file } = await written()
    const fromFile = await createKernel({ configFile: file })
    kernels.push(fromFile)
    const builtIn = await createKernel(defaultSet())
    kernels.push(builtIn)
    expect(fromFile.plugins().map((p) => p.spec)).toEqual(Object.keys(DEFAULT_PLUGINS))
    expect(shape(fromFile)).toEqual(shape(builtIn))
    expect(builtIn.ctx.sandbox.defaults.mode).toBe('read-only')
    expect(builtIn.ctx.approval.settings.policy).toBe('ask')
    expect(builtIn.ctx.tools.schemas().map((s) => s.name)).toEqual(expect.arrayContaining(['read', 'write', 'edit', 'ls', 'grep', 'glob', 'bash']))
  })

  it('holds every key of every service and bundled plugin at its default, one "# " away from its place', async () => {
    const { text } = await written()
    const services = serviceSections()
    const plugins = await pluginSections(join(import.meta.dirname, '../../core/dsh/src'))
    const names = new Set<string>([...services.map((s) => s.name), ...plugins.map((p) => p.name), 'plugins'])
    for (const s of [...services, ...plugins]) for (const k of s.keys) for (const part of k.path.split('.')) names.add(part)
    // uncomment every line that is a known key with a JSON value (or none); leave the notes
    const open = text.split('\n').map((line) => {
      const m = /^(\s*)# ([\w\s-]*?)([\w-]+):( .*)?$/.exec(line)
      if (!m || !names.has(m[3]) || m[2].trim()) return line
      if (m[4] !== undefined) {
        try {
          JSON.parse(m[4])
        } catch {
          return line
        }
      }
      return `${m[1]}${m[2]}${m[3]}:${m[4] ?? ''}`
    }).join('\n')
    const all = parse(open) as Record<string, any>
    const at = (object: any, path: string) => path.split('.').reduce((o, k) => (o && typeof o === 'object' && Object.hasOwn(o, k) ? o[k] : undefined), object)
    const has = (object: any, path: string) => {
      const parts = path.split('.')
      const parent = at(object, parts.slice(0, -1).join('.')) ?? (parts.length === 1 ? object : undefined)
      return parent !== null && typeof parent === 'object' && Object.hasOwn(parent, parts[parts.length - 1])
    }
    const missing: string[] = []
    for (const s of services) {
      const section = s.name ? all[s.name] : all
      for (const k of s.keys) {
        if (!has(section, k.path)) missing.push(`${s.name || '(top)'}.${k.path}`)
        else if (k.default !== undefined) expect(at(section, k.path), `${s.name}.${k.path}`).toEqual(JSON.parse(k.default))
      }
    }
    for (const p of plugins) {
      for (const k of p.keys) {
        if (!has(all.plugins?.[p.name], k.path)) missing.push(`plugins.${p.name}.${k.path}`)
        else if (k.default !== undefined) expect(at(all.plugins[p.name], k.path), `${p.name}.${k.path}`).toEqual(JSON.parse(k.default))
      }
    }
    expect(missing).toEqual([])
    // and as written, only the default set is active
    const active = parse(text) as Record<string, any>
    expect(Object.keys(active)).toEqual(['plugins'])
    expect(Object.keys(active.plugins)).toEqual(Object.keys(DEFAULT_PLUGINS))
  })
})
