/** The current hook set, each file re-read when its stamp changes and checked before every call, since an edit must apply to the next call whether or not the watcher fired (docs/architecture.md, Hooks). */
import { fileStamp } from '@dsh/claude-code-settings'
import { describeError, KernelError } from '@dsh/kernel'
import type { SettingsReader } from './protect.js'
import { parseSettingsText, readSettingsFile } from './settings.js'
import type { HookSpec, SourceKind } from './types.js'

export interface FileSource {
  file: string
  kind: SourceKind
}

export interface Problem {
  file: string
  message: string
  /** identifies this problem with this version of the file */
  key: string
}

export interface Snapshot {
  hooks: readonly HookSpec[]
  problems: readonly Problem[]
}

interface Loaded extends FileSource {
  stamp?: string
  good: readonly HookSpec[]
  problem?: Problem
}

export class HookStore {
  private loaded: Loaded[]
  private current: Snapshot

  /** `refuse(file)` says why a file must not be loaded (see protect.ts) */
  constructor(private inline: readonly HookSpec[], sources: readonly FileSource[], private refuse: (file: string) => string | undefined, private reader?: SettingsReader) {
    this.loaded = sources.map((source) => ({ ...source, good: [] }))
    this.current = { hooks: [...inline], problems: [] }
  }

  /** The settings files, for the watcher. */
  files(): string[] {
    return this.loaded.map((entry) => entry.file)
  }

  /** Load every file; the first problem is thrown as `INVALID_CONFIG`. */
  init(): Snapshot {
    const snapshot = this.refresh()
    const problem = snapshot.problems[0]
    if (problem) throw new KernelError('INVALID_CONFIG', problem.message, { details: { file: problem.file } })
    return snapshot
  }

  /** Re-read the files that changed; returns the hook set to use now. `changed` lists what was re-read. */
  refresh(changed: string[] = []): Snapshot {
    let dirty = false
    for (const entry of this.loaded) {
      const stamp = this.reader ? this.reader.stamp(entry.file) : fileStamp(entry.file)
      if (stamp === entry.stamp) continue
      entry.stamp = stamp
      dirty = true
      changed.push(entry.file)
      this.load(entry, stamp)
    }
    if (dirty) {
      this.current = {
        hooks: [...this.inline, ...this.loaded.flatMap((entry) => entry.good)],
        problems: this.loaded.flatMap((entry) => (entry.problem ? [entry.problem] : [])),
      }
    }
    return this.current
  }

  private load(entry: Loaded, stamp: string): void {
    const problem = (message: string) => {
      // the last good hooks stay; the problem makes the dispatcher deny (onError 'deny')
      entry.problem = { file: entry.file, message, key: `${entry.file}@${stamp}` }
    }
    // what to parse: through the sandbox's ledger (the text no call in progress can have written), else from disk
    let parse: (() => HookSpec[]) | undefined
    if (this.reader) {
      const read = this.reader.read(entry.file)
      if ('refused' in read) return problem(`refusing to load hooks: ${read.refused}`)
      const text = read.text
      if (text !== undefined) parse = () => parseSettingsText(text, entry.file, entry.kind)
    } else if (stamp !== 'missing') {
      parse = () => readSettingsFile(entry.file, entry.kind) ?? []
    }
    if (!parse) {
      entry.good = []
      entry.problem = undefined
      return
    }
    const refused = this.refuse(entry.file)
    if (refused) return problem(`refusing to load hooks: ${refused}`)
    try {
      entry.good = parse()
      entry.problem = undefined
    } catch (error) {
      problem(describeError(error))
    }
  }
}
