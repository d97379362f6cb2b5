#!/usr/bin/env node
// The `dsh` command. This file is committed (so npm can link it on install, before the
// build has run); the command itself lives in the built lib/cli.js.
import '../lib/cli.js'
