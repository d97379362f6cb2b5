/**
 * Watching a config file for `dsh mcp --watch`. The directory is watched, not
 * the file: editors that save by writing a new file and renaming it over the
 * old one would leave a file watcher on a deleted inode. Bursts of events are
 * debounced into one change; reloads never overlap — a change during a reload
 * runs one more reload after it.
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
}

export function watchConfig(file: string, reload: () => Promise<unknown>, options: WatchOptions): ConfigWatcher {
  const name = basename(file)
  const delay = options.debounceMs ?? 100
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined
  let again = false
  let closed = false

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
      } while (again && !closed)
    })().finally(() => (running = undefined))
  }

  const watcher: FSWatcher = watch(dirname(file), (_event, changed) => {
    // some platforms report no file name: then any change in the directory counts
    if (changed && changed.toString() !== name) return
    clearTimeout(timer)
    timer = setTimeout(run, delay)
  })
  watcher.on('error', options.onError)

  return {
    close() {
      if (closed) return
      closed = true
      clearTimeout(timer)
      watcher.close()
    },
  }
}
