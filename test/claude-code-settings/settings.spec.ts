/**
 * The shared reader of Claude Code settings files: the documented paths and
 * their precedence, what counts as a readable settings file, change stamps and
 * the tool-name map both plugins use.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelError } from '@dsh/kernel'
import { claudeToolNamer, fileStamp, managedSettingsPath, parseSettingsDocument, readSettingsDocument, settingsFiles } from '@dsh/claude-code-settings'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-ccs-'))
  dirs.push(dir)
  return dir
}

function thrown(fn: () => unknown): KernelError {
  try {
    fn()
  } catch (error) {
    if (KernelError.is(error)) return error
    throw error
  }
  throw new Error('expected a KernelError')
}

describe('paths and precedence', () => {
  it('names the managed file of each platform', () => {
    expect(managedSettingsPath('linux')).toBe('/etc/claude-code/managed-settings.json')
    expect(managedSettingsPath('darwin')).toBe('/Library/Application Support/ClaudeCode/managed-settings.json')
    expect(managedSettingsPath('win32')).toBe('C:\\Program Files\\ClaudeCode\\managed-settings.json')
  })

  it('lists managed, local, project, user — highest precedence first', () => {
    expect(settingsFiles({ workspace: '/w', home: '/h', platform: 'linux' })).toEqual([
      { scope: 'managed', file: '/etc/claude-code/managed-settings.json' },
      { scope: 'local', file: '/w/.claude/settings.local.json' },
      { scope: 'project', file: '/w/.claude/settings.json' },
      { scope: 'user', file: '/h/.claude/settings.json' },
    ])
  })
})

describe('reading a file', () => {
  it('returns the object, and undefined for a file that does not exist', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 's.json'), '{"permissions":{"allow":["Bash"]},"other":1}')
    expect(readSettingsDocument(join(dir, 's.json'))).toEqual({ permissions: { allow: ['Bash'] }, other: 1 })
    expect(readSettingsDocument(join(dir, 'none.json'))).toBeUndefined()
  })

  it('refuses bad JSON, a non-object and a directory, naming the file', () => {
    const dir = tempDir()
    const file = join(dir, 'bad.json')
    expect(thrown(() => parseSettingsDocument('{"a":', file)).message).toMatch(new RegExp(`^${file}: not valid JSON`))
    const array = thrown(() => parseSettingsDocument('[1]', file))
    expect(array.code).toBe('INVALID_CONFIG')
    expect(array.message).toBe(`${file}: $: expected a settings object, got [1]`)
    mkdirSync(join(dir, 'd.json'))
    expect(thrown(() => readSettingsDocument(join(dir, 'd.json'))).message).toMatch(/cannot be read: not a regular file/)
  })

  it('reads through a symbolic link but not a dangling one as a file', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'real.json'), '{}')
    symlinkSync(join(dir, 'real.json'), join(dir, 'link.json'))
    symlinkSync(join(dir, 'gone.json'), join(dir, 'dangling.json'))
    expect(readSettingsDocument(join(dir, 'link.json'))).toEqual({})
    expect(readSettingsDocument(join(dir, 'dangling.json'))).toBeUndefined()
  })
})

describe('stamps', () => {
  it('change when a file is rewritten or appears, and stay while it does not', () => {
    const dir = tempDir()
    const file = join(dir, 's.json')
    expect(fileStamp(file)).toBe('missing')
    writeFileSync(file, '{}')
    const first = fileStamp(file)
    expect(first).not.toBe('missing')
    expect(fileStamp(file)).toBe(first)
    writeFileSync(file, '{"a":1}')
    expect(fileStamp(file)).not.toBe(first)
  })
})

describe('tool names', () => {
  it('maps our tools to Claude Code names, with overrides, and hostile names to themselves', () => {
    const name = claudeToolNamer({ fetch: 'WebFetch', bash: 'Shell' })
    expect(['read', 'write', 'edit', 'ls', 'grep', 'glob'].map(name)).toEqual(['Read', 'Write', 'Edit', 'LS', 'Grep', 'Glob'])
    expect(name('bash')).toBe('Shell')
    expect(name('fetch')).toBe('WebFetch')
    expect(name('mcp__gh__pr')).toBe('mcp__gh__pr')
    expect(name('constructor')).toBe('constructor')
    expect(name('__proto__')).toBe('__proto__')
  })
})
