/**
 * The grammar's modules compile Liftoff-only (shell.ts): the flags are put back so wholly that a
 * V8 code cache made after the grammar loaded is taken by a fresh process — the CLI bundle's cache
 * is written by a training run that may have loaded it (a cache with another flag hash is rejected,
 * and every start then compiles the whole bundle).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const entry = pathToFileURL(join(import.meta.dirname, '../../plugins/claude-code-permissions/lib/index.js')).href
let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

const SCRIPT = "const vm = require('node:vm'); const src = 'function f() { return 1 } f()';"

describe('the grammar load and V8 flags', () => {
  it('a code cache made after the grammar loaded is accepted by a fresh process', () => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-flags-'))
    const cache = join(dir, 'cache.bin')
    const make = spawnSync(process.execPath, ['--input-type=module', '-e', `
      import { createRequire } from 'node:module'
      import { writeFileSync } from 'node:fs'
      const require = createRequire(import.meta.url)
      const { loadShellParser, analyzeShell } = await import(${JSON.stringify(entry)})
      await loadShellParser()
      if (analyzeShell('echo hi').kind !== 'commands') throw new Error('the grammar did not parse')
      ${SCRIPT}
      writeFileSync(${JSON.stringify(cache)}, new vm.Script(src, { filename: 'f.js' }).createCachedData())
    `], { encoding: 'utf8', timeout: 60_000 })
    expect(make.status, make.stderr).toBe(0)
    const take = spawnSync(process.execPath, ['-e', `${SCRIPT}
      const s = new vm.Script(src, { filename: 'f.js', cachedData: require('node:fs').readFileSync(${JSON.stringify(cache)}) })
      process.stdout.write(s.cachedDataRejected ? 'rejected' : 'accepted')
    `], { encoding: 'utf8', timeout: 60_000 })
    expect(take.stdout, take.stderr).toBe('accepted')
  })

  it('no function of the grammar is ever compiled with TurboFan: not the ones the first parses run, not the ones first run later', () => {
    // V8 prints one line per compiled WebAssembly function, naming the tier; the exit waits for
    // background jobs, so a tier-up the parses triggered has printed by the time the child ends
    const run = spawnSync(process.execPath, ['--trace-wasm-compilation-times', '--input-type=module', '-e', `
      const { loadShellParser, analyzeShell } = await import(${JSON.stringify(entry)})
      await loadShellParser()
      const shapes = ['echo hi', 'cd src && ls -la "$HOME" | grep -v x > out.txt', 'for f in *.c; do gcc -c "$f" || exit 1; done', 'case $x in a) echo a;; esac', '[[ -f x ]] && (cd y; make)', 'cat <<<"$(date)"', 'while read l; do echo "$l"; done < f', 'a=$((1+2)) b=\${c:-d} env -i e=f sh -c "g; h"']
      for (let i = 0; i < 300; i++) for (const s of shapes) if (analyzeShell(s + '; echo ' + i).kind !== 'commands') throw new Error('did not parse: ' + s)
    `], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    const compiled = `${run.stdout}${run.stderr}`.split('\n').filter((line) => /^Compiled function/.test(line))
    expect(compiled.length).toBeGreaterThan(100)
    expect(compiled.filter((line) => /turbofan/i.test(line))).toEqual([])
  })
})
