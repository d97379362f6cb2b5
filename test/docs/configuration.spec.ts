// docs/configuration.md lists every key a dsh.yml can set — the services'
// sections and every plugin in plugins/* — with the type, default and
// meaning the schemastery schemas give, read from the schemas themselves:
// a key added to a Config without a description, or without its row here,
// fails. `DSH_WRITE_CONFIG_DOCS=1 npx vitest run test/docs/configuration.spec.ts`
// rewrites the tables from the schemas.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// the config reference is private to dsh (read here on purpose: the CLI's `dsh init` is its one user)
import { configKeys, serviceSections, type ConfigSection } from '../../core/dsh/src/config/reference.js'
import { BUNDLED } from 'dsh'

const root = join(import.meta.dirname, '../..')
const DOC = join(root, 'docs/configuration.md')
const BEGIN = '<!-- keys: generated from the schemas, checked by test/docs/configuration.spec.ts -->'
const END = '<!-- /keys -->'

/** Every package in plugins/*, its Config read from the package itself. */
async function pluginsOnDisk(): Promise<ConfigSection[]> {
  const sections: ConfigSection[] = []
  for (const dir of readdirSync(join(root, 'plugins')).sort()) {
    const pkg = JSON.parse(readFileSync(join(root, 'plugins', dir, 'package.json'), 'utf8')) as { name: string }
    const mod = await import(pkg.name)
    const plugin = typeof mod.apply === 'function' ? mod : mod.default
    sections.push({ name: pkg.name.replace(/^@dsh\//, ''), kind: 'plugin', package: pkg.name, keys: plugin?.Config ? configKeys(plugin.Config) : [] })
  }
  return sections
}

const cell = (text: string) => text.replace(/\|/g, '\\|')

function table(section: ConfigSection): string {
  const rows = section.keys.map((k) => `| \`${k.path}\` | ${cell(k.type)} | ${k.default !== undefined ? `\`${cell(k.default)}\`` : '—'} | ${cell(k.description ?? '')} |`)
  return ['| key | type | default | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

function render(services: ConfigSection[], plugins: ConfigSection[]): string {
  const parts = ['## Services', '']
  for (const s of services) parts.push(s.name ? `### \`${s.name}\`` : '### Top level', '', table(s), '')
  parts.push('## Plugins', '')
  for (const p of plugins) parts.push(`### \`${p.name}\` (\`${p.package}\`)`, '', p.keys.length ? table(p) : 'No configuration.', '')
  return parts.join('\n')
}

describe('docs/configuration.md', () => {
  it('every package in plugins/* is a bundled plugin (so dsh init and the docs cover it)', () => {
    const onDisk = readdirSync(join(root, 'plugins')).map((dir) => (JSON.parse(readFileSync(join(root, 'plugins', dir, 'package.json'), 'utf8')) as { name: string }).name.replace(/^@dsh\//, ''))
    expect([...BUNDLED].sort()).toEqual(onDisk.sort())
  })

  it('every key of every service and plugin has a description in its schema', async () => {
    const missing = [...serviceSections(), ...(await pluginsOnDisk())].flatMap((s) => s.keys.filter((k) => !k.description).map((k) => `${s.name || '(top level)'}: ${k.path}`))
    expect(missing, 'add .description() to these keys').toEqual([])
  })

  it('lists exactly the keys of the schemas, with their types, defaults and meanings', async () => {
    const generated = render(serviceSections(), await pluginsOnDisk())
    const doc = readFileSync(DOC, 'utf8')
    const from = doc.indexOf(BEGIN)
    const to = doc.indexOf(END)
    expect(from, `${DOC} has the ${BEGIN} marker`).toBeGreaterThanOrEqual(0)
    expect(to).toBeGreaterThan(from)
    if (process.env.DSH_WRITE_CONFIG_DOCS === '1') {
      writeFileSync(DOC, `${doc.slice(0, from + BEGIN.length)}\n\n${generated}\n${doc.slice(to)}`)
      return
    }
    expect(doc.slice(from + BEGIN.length, to).trim(), 'the tables differ from the schemas: rerun with DSH_WRITE_CONFIG_DOCS=1').toBe(generated.trim())
  })
})
