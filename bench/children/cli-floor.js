// cli.startup_floor_ms's child: read and compile (parse, no linking, no evaluation) each ES module
// listed in the JSON file argv[2] — what loading dsh mcp's code costs at the least, beyond node's start.
import { readFileSync } from 'node:fs'
import vm from 'node:vm'

for (const url of JSON.parse(readFileSync(process.argv[2], 'utf8'))) new vm.SourceTextModule(readFileSync(new URL(url), 'utf8'), { identifier: url })
