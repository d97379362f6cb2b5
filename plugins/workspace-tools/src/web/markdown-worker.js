// web_fetch's HTML → Markdown, on a worker thread: turndown (with the GFM rules
// for tables, strikethrough and task lists) is loaded only here, so a server
// that never fetches never loads it, and a page whose conversion takes too
// long is stopped by terminating the thread (markdown.ts) instead of holding
// the server's event loop. The thread serves one page at a time and is kept
// between pages, so turndown's import is paid once. Plain JavaScript, checked
// through JSDoc: a worker thread loads it as is, from `src` under vitest and
// from `lib` once built.
import { parentPort } from 'node:worker_threads'
import TurndownService from 'turndown'
import gfmPlugin from '@joplin/turndown-plugin-gfm'

const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' })
service.use(gfmPlugin.gfm)
// what a reader never sees on the page: code, styles, the head, embedded frames and forms' machinery
service.remove(['script', 'style', 'noscript', 'template', 'head', 'title', 'iframe', 'object', 'embed', 'svg', 'canvas', 'select', 'button'])

parentPort?.on('message', (/** @type {{ html: string }} */ { html }) => {
  try {
    parentPort?.postMessage({ markdown: service.turndown(html) })
  } catch (error) {
    parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) })
  }
})
