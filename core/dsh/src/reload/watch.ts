/**
 * Watching a config file for `dsh mcp --watch`. The directory is watched, not
 * the file: editors that save by writing a new file and renaming it over the
 * old one would leave a file watcher on a deleted inode. Bursts of events are
 * debounced into one change; reloads never overlap — a change during a reload
 * runs one more reload after it. The code files of the plugins loaded from
 * paths (`codeFiles`, asked again after every reload) are watched the same
 * way, through their directories, so a change of their code reloads them.
 */
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'

export interface ConfigWatcher {
  close(): void
}

export interface WatchOptions {
  /** quiet time before a burst of events counts as one change (default 100 ms) */
  debounceMs?: number
  onError(error: unknown): void
  /** more files whose change counts (the code of plugins loaded from paths) */
  codeFiles?: () => string[]
}

export function watchConfig(file: string, reload: () => Promise<unknown>, options: WatchOptions): ConfigWatcher {
  const delay = options.debounceMs ?? 100
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined
  let again = false
  let closed = false
  // each watched directory: its watcher, and the names in it that count
  const watched = new Map<string, { watcher: FSWatcher; names: Set<string> }>()

  const run = () => {
    timer = undefined
    if (closed) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        await reload().catch(options.onError)
        follow()
      } while (again && !closed)
    })().finally(() => (running = undefined))
  }

  const watchDir = (dir: string, names: Set<string>) => {
    const watcher = watch(dir, (_event, changed) => {
      // some platforms report no file name: then any change in the directory counts
      if (changed && !names.has(changed.toString())) return
      clearTimeout(timer)
      timer = setTimeout(run, delay)
    })
    watcher.on('error', options.onError)
    watched.set(dir, { watcher, names })
  }

  /** Watch the config and the current code files: new directories added, gone ones closed. */
  const follow = () => {
    if (closed) return
    const wanted = new Map<string, Set<string>>([[dirname(file), new Set([basename(file)])]])
    for (const path of options.codeFiles?.() ?? []) {
      const names = wanted.get(dirname(path)) ?? new Set<string>()
      names.add(basename(path))
      wanted.set(dirname(path), names)
    }
    for (const [dir, { watcher }] of watched) {
      if (wanted.has(dir)) continue
      watcher.close()
      watched.delete(dir)
    }
    for (const [dir, names] of wanted) {
      const current = watched.get(dir)
      if (current) {
        current.names.clear()
        for (const name of names) current.names.add(name)
        continue
      }
      try {
        watchDir(dir, names)
      } catch (error) {
        // the config's own directory must be watchable: the caller hears of it at once
        if (dir === dirname(file)) throw error
        options.onError(error)
      }
    }
  }
  follow()

  return {
    close() {
      if (closed) return
      closed = true
      clearTimeout(timer)
      for (const { watcher } of watched.values()) watcher.close()
      watched.clear()
    },
  }
}
