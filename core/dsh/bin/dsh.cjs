#!/usr/bin/env node
// The `dsh` command (package.json's bin). CommonJS, so node starts it without its ES module
// loader: where the build made the bundle, dist/start.cjs runs the script dist/cli.cjs with its
// code cache (the faster start); else the built lib/cli.js runs. This file is committed (npm links
// it on install, before the build has run).
'use strict'
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const dist = join(__dirname, '..', 'dist')
if (existsSync(join(dist, 'start.cjs')) && existsSync(join(dist, 'cli.cjs'))) require(join(dist, 'start.cjs'))
else import('../lib/cli.js')
