/**
 * The current rule set: the settings files plus the inline rules, compiled
 * whole. File stamps are checked before every decision (and a watcher checks
 * between calls), so an edit applies to the next call. A reload that fails —
 * bad JSON, a bad rule, a file that cannot be read — keeps the previous rule
 * set whole and reports the problem; at startup, any problem is thrown, so
 * the plugin never runs with part of its rules. A managed settings file
 * brings the drop-ins of its `managed-settings.d/`, re-listed when the
 * directory changes.
 */
import { basename, dirname, join } from 'node:path'
import { dropInDirectory, fileStamp, readSettingsDocument, withDropIns } from '@dsh/claude-code-settings'
import { describeError } from '@dsh/kernel'
import { compileRuleSet, INLINE, type CompileOptions, type PermissionSource, type RuleSet } from './ruleset.js'

export interface SettingsSource {
  file: string
  /** the project root for `/path` rules */
  root: string
}

/** The project root of a settings file: the directory holding its `.claude/`, else `fallback`. */
export function rootOf(file: string, fallback: string): string {
  const dir = dirname(file)
  return basename(dir) === '.claude' ? dirname(dir) : fallback
}

export interface Reload {
  changed: boolean
  /** set when the files changed but could not be loaded: the previous rules stay */
  problem?: string
}

export class RuleStore {
  private key: string
  private current: RuleSet
  /** per drop-in directory: its listing and the directory's stamp when listed */
  private listings = new Map<string, { stamp: string; files: string[] }>()

  /** `files` as configured, highest precedence first; a managed file brings its drop-ins (see `withDropIns`) */
  constructor(private files: readonly SettingsSource[], private inline: unknown, private options: CompileOptions) {
    this.key = this.stamps()
    this.current = this.compile()
  }

  get rules(): RuleSet {
    return this.current
  }

  /** The files read, drop-ins included, highest precedence first. */
  get sources(): readonly string[] {
    return this.expanded().map((source) => source.file)
  }

  /** What the watcher watches: the configured files and the drop-in directories (a path inside each). */
  get watched(): readonly string[] {
    return this.files.flatMap(({ file }) => {
      const dir = dropInDirectory(file)
      return dir ? [file, join(dir, '*.json')] : [file]
    })
  }

  /** Re-read when a file, or a drop-in directory's listing, changed. */
  refresh(): Reload {
    let key: string
    try {
      key = this.stamps()
    } catch (error) {
      // a drop-in directory that cannot be listed: the previous rules stay
      return { changed: true, problem: describeError(error) }
    }
    if (key === this.key) return { changed: false }
    this.key = key
    try {
      this.current = this.compile()
      return { changed: true }
    } catch (error) {
      return { changed: true, problem: describeError(error) }
    }
  }

  private expanded(): SettingsSource[] {
    return this.files.flatMap(({ file, root }) => this.withDropIns(file).map((each) => ({ file: each, root })))
  }

  /**
   * `withDropIns`, listed again only when the drop-in directory's stamp changed (adding, removing
   * or renaming an entry changes it; a fragment's own edits show in its own stamp), not before
   * every decision. Stamped before it is listed: a change in between shows as a new stamp next time.
   */
  private withDropIns(file: string): string[] {
    const dir = dropInDirectory(file)
    if (!dir) return [file]
    const stamp = fileStamp(dir)
    const known = this.listings.get(dir)
    if (known?.stamp === stamp) return known.files
    const files = withDropIns(file)
    // a directory that cannot be stat'ed is listed every time (and refused while it cannot be)
    if (!stamp.startsWith('error:')) this.listings.set(dir, { stamp, files })
    return files
  }

  /** One string that changes when any file read, or the set of drop-ins, changes. */
  private stamps(): string {
    const dirs = this.files.flatMap(({ file }) => {
      const dir = dropInDirectory(file)
      return dir ? [`${dir}=${fileStamp(dir)}`] : []
    })
    return [...dirs, ...this.expanded().map((source) => `${source.file}=${fileStamp(source.file)}`)].join('\n')
  }

  private compile(): RuleSet {
    const sources: PermissionSource[] = []
    for (const { file, root } of this.expanded()) {
      const document = readSettingsDocument(file)
      if (document && Object.hasOwn(document, 'permissions')) sources.push({ source: file, root, permissions: document.permissions })
    }
    if (this.inline !== undefined) sources.push({ source: INLINE, root: this.options.workspace, permissions: this.inline })
    return compileRuleSet(sources, this.options)
  }
}
