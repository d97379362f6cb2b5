/** The programs that run another command and their options, since a rule must meet the command a wrapper runs (docs/decisions/2026-12-01-permission-rule-matching.md). */
import { readdirSync, realpathSync, type Dirent } from 'node:fs'
import { basename, join } from 'node:path'

export type Unwrapped =
  | { kind: 'command'; words: (string | null)[]; transparent: boolean; unknownTail?: boolean }
  | { kind: 'script'; script: string | null; transparent: boolean }
  | { kind: 'unknown'; reason: string }

/** option → words it takes; `=` forms (`--signal=KILL`) and attached short values (`-n5`) are handled by the scanner */
type Options = Record<string, number>

interface Wrapper {
  options: Options
  /** positional words before the command (timeout's duration) */
  positional?: number
  transparent: boolean
  /** NAME=VALUE words before the command (env) make it not transparent */
  assignments?: boolean
  /** the command gets arguments only known at run time (xargs) */
  unknownTail?: boolean
}

const WRAPPERS: Record<string, Wrapper> = {
  nohup: { options: {}, transparent: true },
  nice: { options: { '-n': 1, '--adjustment': 1 }, transparent: true },
  timeout: { options: { '-s': 1, '--signal': 1, '-k': 1, '--kill-after': 1, '--preserve-status': 0, '--foreground': 0, '-v': 0, '--verbose': 0 }, positional: 1, transparent: true },
  stdbuf: { options: { '-i': 1, '-o': 1, '-e': 1, '--input': 1, '--output': 1, '--error': 1 }, transparent: true },
  time: { options: { '-p': 0, '-a': 0, '-v': 0, '-o': 1, '-f': 1, '--portability': 0, '--append': 0, '--verbose': 0, '--output': 1, '--format': 1 }, transparent: true },
  command: { options: { '-p': 0, '-v': 0, '-V': 0 }, transparent: true },
  exec: { options: { '-c': 0, '-l': 0, '-a': 1 }, transparent: true },
  setsid: { options: { '-c': 0, '-f': 0, '-w': 0, '--ctty': 0, '--fork': 0, '--wait': 0 }, transparent: true },
  ionice: { options: { '-c': 1, '-n': 1, '-t': 0, '--class': 1, '--classdata': 1, '--ignore': 0 }, transparent: true },
  env: { options: { '-i': 0, '-0': 0, '-v': 0, '-u': 1, '-C': 1, '--ignore-environment': 0, '--null': 0, '--unset': 1, '--chdir': 1, '--debug': 0 }, transparent: true, assignments: true },
  sudo: {
    options: {
      '-u': 1, '-g': 1, '-h': 1, '-p': 1, '-C': 1, '-D': 1, '-R': 1, '-T': 1, '-U': 1, '-r': 1, '-t': 1,
      '-A': 0, '-b': 0, '-E': 0, '-H': 0, '-n': 0, '-P': 0, '-S': 0, '-k': 0, '-K': 0, '-B': 0, '-N': 0,
      '--user': 1, '--group': 1, '--host': 1, '--prompt': 1, '--chdir': 1, '--chroot': 1, '--close-from': 1, '--command-timeout': 1, '--other-user': 1, '--role': 1, '--type': 1,
      '--askpass': 0, '--background': 0, '--preserve-env': 0, '--set-home': 0, '--non-interactive': 0, '--preserve-groups': 0, '--stdin': 0, '--reset-timestamp': 0, '--bell': 0,
    },
    transparent: false,
    assignments: true,
  },
  doas: { options: { '-u': 1, '-C': 1, '-n': 0, '-s': 0, '-L': 0 }, transparent: false },
  xargs: {
    options: {
      '-0': 0, '-a': 1, '-d': 1, '-E': 1, '-e': 1, '-I': 1, '-i': 0, '-L': 1, '-l': 0, '-n': 1, '-P': 1, '-p': 0, '-r': 0, '-s': 1, '-t': 0, '-x': 0, '-o': 0,
      '--null': 0, '--arg-file': 1, '--delimiter': 1, '--eof': 1, '--replace': 1, '--max-lines': 1, '--max-args': 1, '--max-procs': 1, '--interactive': 0, '--no-run-if-empty': 0, '--max-chars': 1, '--verbose': 0, '--exit': 0, '--open-tty': 0,
    },
    transparent: false,
    unknownTail: true,
  },
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'busybox'])

/**
 * The dynamic loader (`/lib64/ld-linux-x86-64.so.2 /bin/rm x`): it maps the program it is given and
 * runs it in its own process, with no exec the sandbox could stop, so the command it runs is read
 * from its argv (glibc's and musl's options). Its names are a pattern (`ld-linux-*.so.N`,
 * `ld-musl-*.so.1`, `ld-2.31.so`, `ld.so`, `ld64.so.2`).
 */
const LOADER = /^ld(?:64)?(?:-[A-Za-z0-9_.+-]+)?\.so(?:\.[0-9]+)*$/
const LOADER_OPTIONS: Wrapper = {
  options: {
    '--list': 0, '--verify': 0, '--inhibit-cache': 0, '--list-tunables': 0, '--list-diagnostics': 0, '--help': 0, '--version': 0,
    '--library-path': 1, '--inhibit-rpath': 1, '--audit': 1, '--preload': 1, '--argv0': 1, '--glibc-hwcaps-prepend': 1, '--glibc-hwcaps-mask': 1,
  },
  transparent: false,
}
/** the loaders' names on common systems, beside those found on this one (loaderNames) */
const KNOWN_LOADERS = ['ld.so', 'ld.so.1', 'ld64.so.1', 'ld64.so.2', 'ld-linux.so.2', 'ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1', 'ld-linux-armhf.so.3', 'ld-linux-riscv64-lp64d.so.1', 'ld-musl-x86_64.so.1', 'ld-musl-aarch64.so.1', 'ld-musl-armhf.so.1']
const LIBRARY_DIRS = ['/lib', '/lib64', '/lib32', '/libx32', '/usr/lib', '/usr/lib64', '/usr/lib32', '/usr/libx32']
let loaders: string[] | undefined

/**
 * The index of the word a loader run with `words` loads, as glibc's rtld finds it (its options
 * skipped, `--` ending them, the first other word), or -1: the launcher resolves the same word
 * (native/landlock-run/exec-loader.c).
 */
export function loaderProgram(words: readonly string[]): number {
  let i = 1
  while (i < words.length) {
    const word = words[i]
    if (!Object.hasOwn(LOADER_OPTIONS.options, word)) break
    if (LOADER_OPTIONS.options[word] === 0) i++
    else if (i + 1 < words.length) i += 2
    else break
  }
  if (words[i] === '--') i++
  return i < words.length ? i : -1
}

/** Whether a program name is the dynamic loader's (it runs the program it is given without an exec). */
export function isLoader(name: string): boolean {
  return LOADER.test(name)
}

/** Every name a dynamic loader has here: the known ones and each one in the library directories (and their per-architecture ones), by name and by real path. */
export function loaderNames(): string[] {
  if (loaders) return loaders
  const found = new Set(KNOWN_LOADERS)
  const look = (dir: string, depth: number) => {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (isLoader(entry.name)) {
        found.add(entry.name)
        try {
          found.add(basename(realpathSync(join(dir, entry.name))))
        } catch {}
      } else if (depth > 0 && entry.isDirectory() && entry.name.includes('-linux-')) {
        look(join(dir, entry.name), depth - 1)
      }
    }
  }
  for (const dir of LIBRARY_DIRS) look(dir, 1)
  loaders = [...found].filter(isLoader).sort()
  return loaders
}

/** Every program name unwrap() reads another command out of (the exec check must see their argv). */
export function wrapperPrograms(): string[] {
  return [...Object.keys(WRAPPERS), ...SHELLS, 'eval', 'su', 'watch', ...loaderNames()]
}

/** The word a program is known by: `/usr/bin/env` is `env`, `\rm` was already unquoted to `rm`. */
export function programName(word: string): string {
  return word.includes('/') ? basename(word) : word
}

/** What `words` (a command's name and arguments) runs inside, or undefined when it is not a wrapper. */
export function unwrap(words: readonly (string | null)[]): Unwrapped | undefined {
  const first = words[0]
  if (typeof first !== 'string') return undefined
  const name = programName(first)
  if (name === 'eval') {
    const rest = words.slice(1)
    return { kind: 'script', script: rest.some((word) => word === null) ? null : rest.join(' '), transparent: true }
  }
  if (SHELLS.has(name)) return shellScript(words)
  if (name === 'su') return optionScript(words, '-c', '--command')
  if (name === 'watch') return watchScript(words)
  if (isLoader(name)) return scan(words, LOADER_OPTIONS, name)
  const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
  return wrapper ? scan(words, wrapper, name) : undefined
}

function scan(words: readonly (string | null)[], wrapper: Wrapper, name: string): Unwrapped | undefined {
  let index = 1
  let transparent = wrapper.transparent
  let positional = wrapper.positional ?? 0
  while (index < words.length) {
    const word = words[index]
    if (word === null) return { kind: 'unknown', reason: `an argument of ${name} is not known before the run` }
    if (word === '--') {
      index++
      break
    }
    if (word.startsWith('-') && word !== '-') {
      const taken = optionWords(word, wrapper.options)
      if (taken === undefined) return { kind: 'unknown', reason: `${name} ${word} is an option this check does not know` }
      if (name === 'env' || name === 'sudo') transparent = false
      index += 1 + taken
      continue
    }
    if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      transparent = false
      index++
      continue
    }
    if (name === 'nice' && /^-?\d+$/.test(word)) {
      index++
      continue
    }
    if (positional > 0) {
      positional--
      index++
      continue
    }
    break
  }
  if (positional > 0) return { kind: 'unknown', reason: `${name} is missing its arguments` }
  const inner = words.slice(index)
  // `env` alone prints the environment, `xargs` alone runs echo, `command -v x` looks x up: the wrapper is the command
  if (!inner.length) return undefined
  return wrapper.unknownTail ? { kind: 'command', words: inner, transparent, unknownTail: true } : { kind: 'command', words: inner, transparent }
}

/** How many following words an option takes; undefined when the wrapper has no such option. */
function optionWords(word: string, options: Options): number | undefined {
  if (word.startsWith('--')) {
    const eq = word.indexOf('=')
    const key = eq < 0 ? word : word.slice(0, eq)
    if (!Object.hasOwn(options, key)) return undefined
    return eq < 0 ? options[key] : 0
  }
  // a cluster of short options: `-nE`, or one taking its value attached (`-n5`, `-uroot`)
  if (/^-\d+$/.test(word) && Object.hasOwn(options, '-n')) return 0
  for (let i = 1; i < word.length; i++) {
    const key = `-${word[i]}`
    if (!Object.hasOwn(options, key)) return undefined
    if (options[key] > 0) return i === word.length - 1 ? options[key] : 0
  }
  return 0
}

function shellScript(words: readonly (string | null)[]): Unwrapped | undefined {
  for (let index = 1; index < words.length; index++) {
    const word = words[index]
    if (word === null) return { kind: 'unknown', reason: 'an argument of the shell is not known before the run' }
    if (word === '-c' || (/^-[a-zA-Z]+$/.test(word) && word.includes('c'))) {
      const script = words[index + 1]
      if (script === undefined) return { kind: 'unknown', reason: `${word} without a script` }
      return { kind: 'script', script, transparent: true }
    }
    if (word === '-o' || word === '+o' || word === '--rcfile' || word === '--init-file') {
      index++
      continue
    }
    if (/^[-+][a-zA-Z]+$/.test(word) || /^--[a-z-]+$/.test(word)) continue
    // `bash script.sh`: a file runs, the command is the shell line itself
    return undefined
  }
  return undefined
}

function optionScript(words: readonly (string | null)[], short: string, long: string): Unwrapped | undefined {
  for (let index = 1; index < words.length; index++) {
    const word = words[index]
    if (word === null) return { kind: 'unknown', reason: `an argument of ${words[0]} is not known before the run` }
    if (word === short || word === long) {
      const script = words[index + 1]
      return script === undefined ? { kind: 'unknown', reason: `${word} without a command` } : { kind: 'script', script, transparent: false }
    }
    if (word.startsWith(`${long}=`)) return { kind: 'script', script: word.slice(long.length + 1), transparent: false }
  }
  return undefined
}

function watchScript(words: readonly (string | null)[]): Unwrapped | undefined {
  const options: Options = { '-n': 1, '--interval': 1, '-d': 0, '-t': 0, '-b': 0, '-e': 0, '-g': 0, '-c': 0, '-x': 0, '-p': 0, '-w': 0, '--differences': 0, '--no-title': 0, '--beep': 0, '--errexit': 0, '--chgexit': 0, '--color': 0, '--exec': 0, '--precise': 0, '--no-wrap': 0 }
  let index = 1
  while (index < words.length) {
    const word = words[index]
    if (word === null) return { kind: 'unknown', reason: 'an argument of watch is not known before the run' }
    if (!word.startsWith('-')) break
    const taken = optionWords(word, options)
    if (taken === undefined) return { kind: 'unknown', reason: `watch ${word} is an option this check does not know` }
    index += 1 + taken
  }
  const rest = words.slice(index)
  if (!rest.length) return undefined
  // watch hands its arguments to `sh -c` joined by spaces
  return { kind: 'script', script: rest.some((word) => word === null) ? null : rest.join(' '), transparent: true }
}
