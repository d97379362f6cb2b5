/**
 * The dsh.yml `dsh init` writes: the built-in default set's plugins as
 * active YAML, and every key of every service and bundled plugin as a
 * comment at its default, with its type and meaning (config-reference.ts),
 * so the file is its own reference. Loading it gives the same kernel as the
 * default set.
 */
import type { ConfigKey, ConfigSection } from './reference.js'
import { DEFAULT_PLUGINS } from './default-set.js'

const WIDTH = 96

/** `text` as comment lines of at most WIDTH columns, each starting with `prefix`. */
function wrap(text: string, prefix: string): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && prefix.length + line.length + 1 + word.length > WIDTH) {
      lines.push(prefix + line)
      line = word
    } else {
      line = line ? `${line} ${word}` : word
    }
  }
  if (line) lines.push(prefix + line)
  return lines
}

/** The note above a key: its meaning, type and default. */
function note(key: ConfigKey): string {
  const meaning = key.description ?? ''
  return `${meaning}${meaning && !/[.!?)]$/.test(meaning) ? '.' : ''} [${key.type}${key.default !== undefined ? `; default ${key.default}` : ''}]`
}

/**
 * A section's keys as YAML lines, commented out at their default (or empty
 * when they have none), the section's own keys at `base` indentation. In a
 * `commented` section (its header commented out too) every line is one `# `
 * away from valid YAML at the right depth. Nested keys (`code.timeoutMs`)
 * become nested mappings.
 */
function keyLines(keys: readonly ConfigKey[], base: string, commented: boolean, set: Readonly<Record<string, unknown>> = {}): string[] {
  const header = base.slice(2)
  // where the `# ` goes so that removing it leaves the line at the right indentation
  const off = (pad: string) => (commented ? `${header}#   ${pad}` : `${base}# ${pad}`)
  const lines: string[] = []
  const opened = new Set<string>()
  for (const key of keys) {
    const parts = key.path.split('.')
    for (let depth = 0; depth < parts.length - 1; depth++) {
      const head = parts.slice(0, depth + 1).join('.')
      if (opened.has(head)) continue
      opened.add(head)
      lines.push(`${off('  '.repeat(depth))}${parts[depth]}:`)
    }
    const pad = '  '.repeat(parts.length - 1)
    lines.push(...wrap(note(key), commented ? `${header}#   ${pad}# ` : `${base}${pad}# `))
    // a key the default set gives a value is written active with it (JSON is YAML)
    if (parts.length === 1 && Object.hasOwn(set, key.path)) lines.push(`${base}${key.path}: ${JSON.stringify(set[key.path])}`)
    else lines.push(`${off(pad)}${parts[parts.length - 1]}:${key.default !== undefined ? ` ${key.default}` : ''}`)
  }
  return lines
}

function header(version: string): string[] {
  return [
    '# dsh.yml: the kernel\'s services and the plugins it loads.',
    `# Written by \`dsh init\` (dsh ${version}): the built-in default set. The lines without # load`,
    '# its plugins; every key of every service and bundled plugin is commented out at its default',
    '# (the services\' defaults are the set\'s: sandbox read-only, approval ask), with its meaning',
    '# and [type; default]. Uncomment a key to change it; docs/configuration.md lists the same',
    '# keys. `dsh inspect` shows the kernel this file builds.',
    '',
  ]
}

export function renderInitFile(services: readonly ConfigSection[], plugins: readonly ConfigSection[], version: string): string {
  const lines = header(version)
  for (const section of services) {
    if (section.name) lines.push(`# ${section.name}:`, ...keyLines(section.keys, '  ', true), '')
    // the top-level keys (dataDir), at column 0 once uncommented
    else for (const key of section.keys) lines.push(...wrap(note(key), '# '), `# ${key.path}:${key.default !== undefined ? ` ${key.default}` : ''}`, '')
  }
  lines.push(
    '# Plugins: a bundled plugin\'s short name, a package name or a path (relative to this file),',
    '# each with its config. The bundled plugins not in the default set are commented out.',
    'plugins:',
  )
  // the default set first, in its load order (listeners run in it), then the other bundled plugins
  const order = Object.keys(DEFAULT_PLUGINS)
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length)
  for (const section of [...plugins].sort((a, b) => rank(a.name) - rank(b.name))) {
    const on = Object.hasOwn(DEFAULT_PLUGINS, section.name)
    lines.push(on ? `  ${section.name}:` : `  # ${section.name}:`, ...keyLines(section.keys, '    ', !on, on ? DEFAULT_PLUGINS[section.name] : {}))
  }
  return `${lines.join('\n')}\n`
}
