/**
 * What `dsh doctor` reports: each problem with its fix; and finding a client's program.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { parseJson } from './json-edit.js'
import { ConfigFileError } from './config-file.js'

export interface Problem {
  problem: string
  fix: string
}

/** The client's program on PATH, or undefined. */
export function onPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const candidate = join(dir, program)
    try {
      if (!statSync(candidate).isFile()) continue
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** A JSON file for reading only: undefined when absent; a malformed one becomes a problem. */
export function readJson(path: string, problems: Problem[]): Record<string, unknown> | undefined {
  let text: string
  try {
    if (!statSync(path).isFile()) return undefined
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    return parseJson(text, path) as Record<string, unknown>
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error
    problems.push({ problem: error.message.replace('; nothing was written', ''), fix: `correct ${path}: the client cannot read it either` })
    return undefined
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

export function render(title: string, problems: readonly Problem[]): string {
  if (problems.length === 0) return `${title}: no problems found\n`
  const lines = [`${title}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`]
  for (const p of problems) lines.push(`  problem: ${p.problem.replace(/\n/g, '\n    ')}`, `      fix: ${p.fix}`)
  return `${lines.join('\n')}\n`
}
