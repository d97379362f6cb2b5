#!/usr/bin/env node
// The `dsh` command. This file is committed (so npm can link it on install, before the
// build has run); the command itself is the bundle where the build made one — dist/cli.js runs
// the script dist/cli.cjs with its code cache (a faster start) — else the built lib/cli.js.
import { existsSync } from 'node:fs'

const bundle = new URL('../dist/cli.js', import.meta.url)
await import(existsSync(bundle) && existsSync(new URL('../dist/cli.cjs', import.meta.url)) ? bundle.href : '../lib/cli.js')
