// cli.startup_floor_ms's child: read and compile (parse, no linking, no evaluation) what dsh mcp
// loads before its first answer, listed in the JSON file argv[2] — its ES modules, and the bundle's
// CommonJS script with the code cache beside it, compiled as dist/cli.js compiles it (the cache
// checked against the source, then given to V8) — what loading dsh mcp's code costs at the least,
// beyond node's start.
import { readFileSync } from 'node:fs'
import vm from 'node:vm'

const { modules, scripts } = JSON.parse(readFileSync(process.argv[2], 'utf8'))
for (const url of modules) new vm.SourceTextModule(readFileSync(new URL(url), 'utf8'), { identifier: url })
for (const { file, loader } of scripts) {
  const { cacheFor, compile } = await import(loader)
  const source = readFileSync(file, 'utf8')
  const found = cacheFor(file, source)
  if (found.state !== 'fresh') throw new Error(`${file}: its code cache is ${found.state}; rebuild (npm run build)`)
  if (compile(file, source, found.data).cachedDataRejected) throw new Error(`${file}: V8 rejected its code cache; rebuild (npm run build)`)
}
