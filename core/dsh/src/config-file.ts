/**
 * `dsh.yml`: the service configs and a map of plugins to their configs, read
 * with the `yaml` package. Errors name the file, the line and the key.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parseDocument } from 'yaml'
import { describeError, KernelError } from '@dsh/kernel'
import { checkOptions, type KernelOptions } from './options.js'

export interface ConfigFile {
  path: string
  /** the directory relative plugin paths and `dataDir` are resolved against */
  dir: string
  options: KernelOptions
}

export function readConfigFile(path: string): ConfigFile {
  const file = resolve(path)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `cannot read ${file}: ${describeError(error)}`, { cause: error })
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length) {
    const first = doc.errors[0]
    const where = first.linePos?.[0] ? `:${first.linePos[0].line}:${first.linePos[0].col}` : ''
    throw new KernelError('INVALID_CONFIG', `${file}${where}: ${first.message.split('\n')[0]}`, { details: { file } })
  }
  const value = doc.toJS() ?? {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new KernelError('INVALID_CONFIG', `${file}: the top level must be a mapping`)
  if ('configFile' in value) throw new KernelError('INVALID_CONFIG', `${file}: configFile cannot be set inside a config file`)
  let options: KernelOptions
  try {
    options = checkOptions(value, file)
  } catch (error) {
    throw new KernelError('INVALID_CONFIG', `${file}: ${describeError(error)}`, { cause: error, details: { file } })
  }
  const dir = dirname(file)
  if (options.dataDir) options.dataDir = resolve(dir, options.dataDir)
  return { path: file, dir, options }
}

/** Options from a config file, overridden key by key by the explicit options. */
export function mergeOptions(file: KernelOptions, explicit: KernelOptions): KernelOptions {
  const merged: KernelOptions = { ...file }
  for (const key of Object.keys(explicit) as Array<keyof KernelOptions>) {
    const value = explicit[key]
    if (value === undefined || key === 'configFile') continue
    const base = merged[key]
    merged[key] = (base && typeof base === 'object' && typeof value === 'object' && key !== 'plugins' ? { ...base, ...value } : value) as any
  }
  return merged
}
