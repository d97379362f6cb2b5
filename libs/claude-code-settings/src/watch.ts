/**
 * Watching settings files for change: `fs.watch` on each file's directory
 * (editors replace files by rename, which a watch on the file itself loses),
 * or on the nearest existing ancestor while the directory does not exist yet.
 * Changes are debounced; after each one the watches are re-armed, since a
 * directory may have appeared or gone. The watcher keeps no process alive and
 * is closed by the returned function (tied to the plugin's scope).
 */
import { existsSync, watch, type FSWatcher } from 'node:fs'
import { dirname } from 'node:path'

function nearestExisting(dir: string): string {
  let current = dir
  while (!existsSync(current)) {
    const parent = dirname(current)
    if (parent === current) break
    current = parent
  }
  return current
}

export function watchFiles(files: readonly string[], onChange: () => void, debounceMs: number): () => void {
  let watchers: FSWatcher[] = []
  let timer: NodeJS.Timeout | undefined
  let closed = false

  const disarm = () => {
    for (const watcher of watchers) {
      try {
        watcher.close()
      } catch {}
    }
    watchers = []
  }
  const schedule = () => {
    if (closed) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = undefined
      if (closed) return
      arm()
      onChange()
    }, debounceMs)
    timer.unref()
  }
  const arm = () => {
    disarm()
    for (const dir of new Set(files.map((file) => nearestExisting(dirname(file))))) {
      try {
        const watcher = watch(dir, { persistent: false }, schedule)
        // a watched directory that goes away: re-arm on the nearest one left
        watcher.on('error', schedule)
        watchers.push(watcher)
      } catch {
        // unwatchable (permissions, too many watches): the per-call stamp check still applies
      }
    }
  }

  arm()
  return () => {
    closed = true
    if (timer) clearTimeout(timer)
    disarm()
  }
}
