/**
 * The current rule set: the settings files plus the inline rules, compiled
 * whole. File stamps are checked before every decision (and a watcher checks
 * between calls), so an edit applies to the next call. A reload that fails —
 * bad JSON, a bad rule, a file that cannot be read — keeps the previous rule
 * set whole and reports the problem; at startup, any problem is thrown, so
 * the plugin never runs with part of its rules.
 */
import { basename, dirname } from 'node:path'
import { fileStamp, readSettingsDocument } from '@dsh/claude-code-settings'
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
  private stamps: string[]
  private current: RuleSet

  constructor(private files: readonly SettingsSource[], private inline: unknown, private options: CompileOptions) {
    this.stamps = files.map((source) => fileStamp(source.file))
    this.current = this.compile()
  }

  get rules(): RuleSet {
    return this.current
  }

  get sources(): readonly string[] {
    return this.files.map((source) => source.file)
  }

  /** Re-read when a stamp changed. */
  refresh(): Reload {
    let changed = false
    const stamps = this.files.map((source, index) => {
      const stamp = fileStamp(source.file)
      if (stamp !== this.stamps[index]) changed = true
      return stamp
    })
    if (!changed) return { changed }
    this.stamps = stamps
    try {
      this.current = this.compile()
      return { changed }
    } catch (error) {
      return { changed, problem: describeError(error) }
    }
  }

  private compile(): RuleSet {
    const sources: PermissionSource[] = []
    for (const { file, root } of this.files) {
      const document = readSettingsDocument(file)
      if (document && Object.hasOwn(document, 'permissions')) sources.push({ source: file, root, permissions: document.permissions })
    }
    if (this.inline !== undefined) sources.push({ source: INLINE, root: this.options.workspace, permissions: this.inline })
    return compileRuleSet(sources, this.options)
  }
}
