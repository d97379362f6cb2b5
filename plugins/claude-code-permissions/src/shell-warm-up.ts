/**
 * The shell grammar readied while the host is idle (`tools/idle`), when a tool the rules read as
 * Bash is there: its load (the WebAssembly module, ~20 ms) and a first parse (V8 compiles the
 * grammar's functions as they are first called, ~10 ms) would otherwise be the first Bash call's.
 * The sample is parsed and dropped: nothing is decided, and no analysis is cached for a command.
 * The dynamic loaders' names (a scan of the library directories, ~5 ms) are looked up then too.
 */
import { analyzeShell, loadShellParser } from './shell.js'
import { loaderNames } from './wrappers.js'

/** common shapes, so the parse's first run goes through most of what a model's commands take */
const SAMPLE = 'cd src && ls -la "$HOME" | grep -v \'x\' > out.txt; echo $(date) $((6*7)) ${A:-b} 2>&1 <<EOF\nline\nEOF\n'

/** Start readying the grammar; `idle()` is asked before each step. A failed load is left for the call to retry. */
export function warmShellParser(idle: () => boolean): void {
  if (!idle()) return
  loadShellParser().then(() => {
    if (idle()) analyzeShell(SAMPLE)
    if (idle()) loaderNames()
  }, () => {})
}
