#!/usr/bin/env node
// The `dsh` command. This file is committed (so npm can link it on install, before the
// build has run); the command itself is the bundle dist/cli.js where the build made one
// (fewer, larger modules: a faster start), else the built lib/cli.js.
import { existsSync } from 'node:fs'

const bundle = new URL('../dist/cli.js', import.meta.url)
await import(existsSync(bundle) ? bundle.href : '../lib/cli.js')
