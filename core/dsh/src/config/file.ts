/**
 * `dsh.yml`: the service configs and a map of plugins to their configs, read
 * with the `yaml` package. Errors name the file, the line and the key.
 */
import { dirname, resolve } from 'node:path'
import { describeError, KernelError } from '@dsh/kernel'
import { readLoaded } from './read-loaded.js'
import { excerptAt, locateProblem, problemPath } from './excerpt.js'
import { checkOptions, type KernelOptions } from '../kernel/options.js'
import { yaml } from './yaml.js'

export interface ConfigFile {
  path: string
  /** the directory relative plugin paths and `dataDir` are resolved against */
  dir: string
  options: KernelOptions
  /** `problem` (at a key path, `['plugins', spec, …]`) as a message naming the file once, with the line and an excerpt */
  describe(path: readonly string[], problem: string): string
}

export function readConfigFile(path: string): ConfigFile {
  const file = resolve(path)
  const text = readLoaded(file)
  const { LineCounter, parseDocument } = yaml()
  const lines = new LineCounter()
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines })
  if (doc.errors.length) {
    const first = doc.errors[0]
    const { where, excerpt } = excerptAt(text, lines, first.pos[0])
    throw new KernelError('INVALID_CONFIG', `${file}:${where}: ${first.message}\n${excerpt}`, { details: { file } })
  }
  const value = doc.toJS() ?? {}
  if (typeof value !== 'object' || Array.isArray(value)) throw new KernelError('INVALID_CONFIG', `${file}: the top level must be a mapping`)
  if ('configFile' in value) throw new KernelError('INVALID_CONFIG', `${file}: configFile cannot be set inside a config file`)
  const describe = (path: readonly string[], problem: string) => locateProblem(file, text, doc, lines, path, problem)
  let options: KernelOptions
  try {
    options = checkOptions(value, 'options')
  } catch (error) {
    const problem = describeError(error).replace(/^options: /, '')
    throw new KernelError('INVALID_CONFIG', describe(problemPath(error, problem), problem), { cause: error, details: { file } })
  }
  const dir = dirname(file)
  if (options.dataDir) options.dataDir = resolve(dir, options.dataDir)
  return { path: file, dir, options, describe }
}

/** A plugin's config error, when the config came from `file`: the same error naming the file, line and key. */
export function inConfigFile(file: ConfigFile | undefined, error: unknown): unknown {
  if (!file || !KernelError.is(error, 'INVALID_CONFIG')) return error
  const plugin = error.details?.plugin
  if (typeof plugin !== 'string' || !Object.hasOwn(file.options.plugins ?? {}, plugin)) return error
  const path = typeof error.details?.path === 'string' && error.details.path ? error.details.path.split('.') : []
  return new KernelError('INVALID_CONFIG', file.describe(['plugins', plugin, ...path], error.message), { cause: error, details: { ...error.details, file: file.path } })
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
