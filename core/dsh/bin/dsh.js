#!/usr/bin/env node
// The `dsh` command as an ES module, for whoever runs this path: it runs bin/dsh.cjs, the
// package's bin (which npm links), so both start the same way.
import './dsh.cjs'
