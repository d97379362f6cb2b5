/**
 * The start-up snapshot's file (cli/mcp/first-answer.ts): its key follows the config's bytes and the
 * working directory; only the user's own regular file, writable by nobody else, in a directory
 * writable by nobody else, is read; a malformed one is not; none is placed inside the working directory.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { firstAnswerFile, readFirstAnswer, writeFirstAnswer, type FirstAnswer } from '../../core/dsh/src/cli/mcp/first-answer.js'
import { MCP_DEFAULTS } from '../../core/dsh/src/config/mcp-limits.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function box() {
  const root = mkdtempSync(join(tmpdir(), 'dsh-first-answer-unit-'))
  dirs.push(root)
  const cwd = join(root, 'project')
  mkdirSync(cwd)
  const env = { XDG_CACHE_HOME: join(root, 'cache') }
  return { root, cwd, env }
}

const ANSWER: FirstAnswer = { instructions: 'about echo', tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object' } }], limits: { ...MCP_DEFAULTS } }

describe('the start-up snapshot', () => {
  it('is written 0600 and read back; its key changes with the config bytes, the working directory and the build', () => {
    const { root, cwd, env } = box()
    const config = join(cwd, 'dsh.yml')
    writeFileSync(config, 'plugins: {}\n')
    const file = firstAnswerFile({ configFile: config, cwd, build: 'b1', env })!
    expect(file.startsWith(join(root, 'cache', 'dsh', 'first-answer'))).toBe(true)
    expect(writeFirstAnswer(file, ANSWER)).toBeUndefined()
    expect(readFirstAnswer(file)).toEqual(ANSWER)
    writeFileSync(config, 'plugins: {}\n# changed\n')
    expect(firstAnswerFile({ configFile: config, cwd, build: 'b1', env })).not.toBe(file)
    expect(firstAnswerFile({ configFile: config, cwd, build: 'b2', env })).not.toBe(firstAnswerFile({ configFile: config, cwd, build: 'b1', env }))
    expect(firstAnswerFile({ cwd: root, build: 'b1', env })).not.toBe(firstAnswerFile({ cwd, build: 'b1', env }))
  })

  it('is not read when it is writable by others, in a directory writable by others, a symlink, not a file, or malformed', () => {
    const { cwd, env } = box()
    const file = firstAnswerFile({ cwd, build: 'b', env })!
    writeFirstAnswer(file, ANSWER)
    chmodSync(file, 0o646)
    expect(readFirstAnswer(file)).toBeUndefined()
    chmodSync(file, 0o600)
    chmodSync(dirname(file), 0o777)
    expect(readFirstAnswer(file)).toBeUndefined()
    chmodSync(dirname(file), 0o700)
    expect(readFirstAnswer(file)).toEqual(ANSWER)
    const elsewhere = join(cwd, 'planted.json')
    writeFileSync(elsewhere, JSON.stringify({ ...ANSWER, instructions: 'INJECTED' }), { mode: 0o600 })
    rmSync(file)
    symlinkSync(elsewhere, file)
    expect(readFirstAnswer(file)).toBeUndefined()
    rmSync(file)
    mkdirSync(file)
    expect(readFirstAnswer(file)).toBeUndefined()
    rmSync(file, { recursive: true })
    for (const bad of ['{', '[]', JSON.stringify({ ...ANSWER, tools: [{}] }), JSON.stringify({ ...ANSWER, limits: { ...MCP_DEFAULTS, maxConcurrentCalls: 0 } })]) {
      writeFileSync(file, bad, { mode: 0o600 })
      expect(readFirstAnswer(file)).toBeUndefined()
      rmSync(file)
    }
  })

  it('has no file when the cache lies inside the working directory, or the config cannot be read', () => {
    const { root, cwd } = box()
    expect(firstAnswerFile({ cwd: root, build: 'b', env: { XDG_CACHE_HOME: join(root, 'inside') } })).toBeUndefined()
    expect(firstAnswerFile({ configFile: join(cwd, 'missing.yml'), cwd, build: 'b', env: { XDG_CACHE_HOME: join(root, 'cache') } })).toBeUndefined()
  })

  it('keeps the 64 newest', () => {
    const { cwd, env } = box()
    const files = Array.from({ length: 70 }, (_, i) => firstAnswerFile({ cwd, build: `b${i}`, env })!)
    for (const file of files) writeFirstAnswer(file, ANSWER)
    expect(files.filter((file) => readFirstAnswer(file)).length).toBe(64)
  })
})
