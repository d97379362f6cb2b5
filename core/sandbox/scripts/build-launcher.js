#!/usr/bin/env node
/**
 * Builds the Landlock launcher (native/landlock-run at the repository root)
 * and places it where @dsh/sandbox finds it: native/<platform>-<arch>/landlock-run
 * in this package, with native/manifest.json recording each binary's SHA-256,
 * which the probe checks (core/sandbox/src/probe/launcher.ts).
 *
 *   node core/sandbox/scripts/build-launcher.js          the root build: this machine's
 *                                                        target, static where a static libc is
 *   node core/sandbox/scripts/build-launcher.js --pack   prepack: every target a compiler is
 *                                                        installed for, static or an error
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pack = process.argv.includes('--pack')
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const source = fileURLToPath(new URL('../../../native/landlock-run', import.meta.url))
const nativeDir = join(packageDir, 'native')

// ELF e_machine of each target, and the cross compiler Debian names for it
const TARGETS = {
  'linux-x64': { machine: 62, cross: 'x86_64-linux-gnu-gcc' },
  'linux-arm64': { machine: 183, cross: 'aarch64-linux-gnu-gcc' },
}
const PT_INTERP = 3
const temps = []

/** e_machine and whether the ELF file asks for a dynamic loader (a PT_INTERP program header). */
function elfInfo(file) {
  const b = readFileSync(file)
  if (b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) throw new Error(`${file} is not a 64-bit little-endian ELF file`)
  const phoff = Number(b.readBigUInt64LE(32))
  const phentsize = b.readUInt16LE(54)
  const phnum = b.readUInt16LE(56)
  let dynamic = false
  for (let i = 0; i < phnum; i++) if (b.readUInt32LE(phoff + i * phentsize) === PT_INTERP) dynamic = true
  return { machine: b.readUInt16LE(18), dynamic }
}

function hostTarget() {
  return `${process.platform}-${process.arch}`
}

function hasCompiler(cc) {
  return spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0
}

/** Build `target` and return the binary's path; undefined when it cannot be built here. */
function build(target) {
  if (target === hostTarget()) {
    execFileSync('make', ['-s', '-C', source, ...(pack ? ['REQUIRE_STATIC=1'] : [])], { stdio: 'inherit' })
    return join(source, 'landlock-run')
  }
  const { cross } = TARGETS[target]
  if (!hasCompiler(cross)) return undefined
  const out = mkdtempSync(join(tmpdir(), `landlock-run-${target}-`))
  temps.push(out)
  execFileSync('make', ['-s', '-C', source, `OUT=${out}`, `CC=${cross}`, 'REQUIRE_STATIC=1'], { stdio: 'inherit' })
  return join(out, 'landlock-run')
}

if (process.platform !== 'linux') {
  console.log(`landlock-run: Linux only, not built on ${process.platform}`)
  process.exit(0)
}
if (!(hostTarget() in TARGETS) && !pack) {
  console.log(`landlock-run: no target for ${hostTarget()}; the Landlock backend will be unavailable`)
  process.exit(0)
}

/** Replace `file` in one step (a rename), so a sandbox probing meanwhile sees the old file or the new one. */
function place(file, write) {
  const temp = `${file}.${process.pid}.tmp`
  write(temp)
  renameSync(temp, file)
}

const targets = pack ? Object.keys(TARGETS) : [hostTarget()]
const launchers = {}
for (const target of targets) {
  const binary = build(target)
  if (!binary) {
    console.log(`landlock-run: no compiler for ${target} (${TARGETS[target].cross}); not packed`)
    continue
  }
  const elf = elfInfo(binary)
  if (elf.machine !== TARGETS[target].machine) throw new Error(`${binary}: built for ELF machine ${elf.machine}, not ${target}`)
  if (pack && elf.dynamic) throw new Error(`${binary}: dynamically linked; a packed launcher must be static`)
  const dir = join(nativeDir, target)
  mkdirSync(dir, { recursive: true })
  place(join(dir, 'landlock-run'), (temp) => {
    copyFileSync(binary, temp)
    chmodSync(temp, 0o755)
  })
  const sha256 = createHash('sha256').update(readFileSync(binary)).digest('hex')
  launchers[target] = { path: `${target}/landlock-run`, sha256, static: !elf.dynamic }
}
if (pack && !launchers[hostTarget()] && hostTarget() in TARGETS) throw new Error(`landlock-run: this machine's target ${hostTarget()} was not built`)
mkdirSync(nativeDir, { recursive: true })
place(join(nativeDir, 'manifest.json'), (temp) => writeFileSync(temp, `${JSON.stringify({ launchers }, null, 2)}\n`, { mode: 0o644 }))
for (const dir of temps) rmSync(dir, { recursive: true, force: true })
// a target built before but not now (no compiler any more) is not left behind to be packed
for (const name of readdirSync(nativeDir)) {
  if (name !== 'manifest.json' && !(name in launchers)) rmSync(join(nativeDir, name), { recursive: true, force: true })
}
