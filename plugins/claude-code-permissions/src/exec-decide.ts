/**
 * Bash rules at each exec inside a confined call (DESIGN §16.6): the sandbox
 * stops every execve/execveat and asks; this decides it with the matcher the
 * command text goes through, on the argv the program gets instead of on text.
 *
 * The program is looked at under each name it has: argv[0], the path given to
 * execve and the real path the kernel would run (a symlink `./x -> /bin/rm` is
 * `rm`), for a script each `#!` interpreter the kernel runs (by the name on
 * its line and by its real path) with the script as its argument, and for the
 * dynamic loader the file it loads by its real path; the strictest verdict wins. A wrapper's argv (`sh -c 'rm x'`,
 * `env rm x`, `xargs rm`) is read as in command text, so its wrapped command
 * is refused before the wrapper runs. What the text matcher could not know
 * (an expansion, a script from a pipe) is no reason to ask here: whatever it
 * runs comes back as an exec of its own. Only deny and ask rules are
 * consulted: an exec no rule refuses runs, as the call's command did.
 * See docs/decisions/2026-12-02-exec-rules.md.
 */
import { decideWords, mightMeet } from './bash-decide.js'
import { byRule, type DecideEnv, type Outcome } from './decide.js'
import type { CompiledRule, RuleSet } from './ruleset.js'
import { isLoader, loaderNames, loaderProgram, programName, wrapperPrograms } from './wrappers.js'

/** What the sandbox hands over for one exec (its ExecRequest). */
export interface ExecFacts {
  path: string
  realPath: string
  /** a script's `#!` lines and their interpreters' real paths (the sandbox's ExecRequest): what the kernel really runs is the last interpreter */
  interpreters?: readonly { readonly line: string; readonly realPath: string }[]
  /** the real path of the file a dynamic loader among them loads (level -1: the program; else that interpreter) */
  loaded?: readonly { readonly level: number; readonly realPath: string }[]
  argv: readonly string[]
  truncated: boolean
  /** the launcher could not know the program (a path through /proc/self or another per-process link): refused */
  unresolved?: boolean
}

/** Whether any rule could refuse an exec: only then is each exec stopped (the filter costs a round trip per exec). */
export function execRulesApply(set: RuleSet): boolean {
  const { deny, ask } = set.bash
  return [deny, ask].some((index) => index.any.length > 0 || index.general.length > 0 || [...index.byHead.values()].some((rules) => rules.length > 0))
}

/**
 * The program names whose execs a rule could refuse or ask about: the heads of the deny and ask
 * rules and, with deny rules, every wrapper (its argv holds a command); undefined when a rule has
 * no fixed program (`Bash(* --force)`, `Bash(*)`): then every exec is asked. The launcher answers
 * an exec none of whose names is listed by itself, with no round trip.
 */
export function execPrograms(set: RuleSet): string[] | undefined {
  const { deny, ask } = set.bash
  if ([deny, ask].some((index) => index.any.length > 0 || index.general.length > 0)) return undefined
  const heads = [deny, ask].flatMap((index) => [...index.byHead].filter(([, rules]) => rules.length > 0).map(([head]) => head))
  const denies = [...deny.byHead.values()].some((rules) => rules.length > 0)
  // Why the loaders with ask rules alone: what a loader runs comes back as no exec of its own
  return [...new Set([...heads, ...(denies ? wrapperPrograms() : loaderNames())])].sort()
}

/**
 * For each listed program a rule names, what an exec's strings must hold for one of its deny or ask
 * rules to meet it (BashPattern.needs, every rule's lists together): the launcher answers an exec
 * that holds none of them by itself. A wrapper has none (its argv holds a command, read with the
 * grammar): each of its execs is asked.
 */
export function execNeeds(set: RuleSet): Record<string, string[][]> {
  const wrappers = new Set(wrapperPrograms())
  const out: Record<string, string[][]> = {}
  for (const index of [set.bash.deny, set.bash.ask]) {
    for (const [head, rules] of index.byHead) {
      if (wrappers.has(head)) continue
      for (const rule of rules) (out[head] ??= []).push(...rule.bash!.needs)
    }
  }
  return out
}

/** The argv under each name of its program, argv[0]'s first. */
export function execNames(exec: ExecFacts): string[][] {
  const argv = exec.argv.length ? [...exec.argv] : [exec.path]
  const out = [argv]
  const seen = new Set([programName(argv[0])])
  for (const name of [exec.realPath, exec.path]) {
    if (!name || seen.has(programName(name))) continue
    seen.add(programName(name))
    out.push([name, ...argv.slice(1)])
  }
  // Why: the dynamic loader runs the file it loads with no exec, known by its real path (`ln -s /bin/rm foo; ld.so ./foo`)
  const load = (level: number, words: readonly string[]) => {
    const real = exec.loaded?.find((entry) => entry.level === level)?.realPath
    const at = loaderProgram(words)
    if (real && at > 0) out.push([real, ...words.slice(at + 1)])
  }
  load(-1, argv)
  // Why: `./s.py` with `#!/usr/bin/python3 -u` runs `/usr/bin/python3 -u ./s.py …`, with no exec of
  // python3; an interpreter that is a script runs its own the same way, on the interpreter's path
  let script = [exec.path || argv[0], ...argv.slice(1)]
  for (const [level, { line, realPath }] of (exec.interpreters ?? []).entries()) {
    const { name, arg } = interpreterOf(line)
    if (!name) break
    const rest = [...(arg ? [arg] : []), ...script]
    out.push([name, ...rest])
    if (realPath && programName(realPath) !== programName(name)) out.push([realPath, ...rest])
    script = [name, ...rest]
    load(level, script)
  }
  return out
}

/** A `#!` line's interpreter and optional argument, as the kernel's binfmt_script reads them: spaces and tabs only. */
function interpreterOf(line: string): { name: string; arg: string } {
  const text = line.replace(/^[ \t]+|[ \t]+$/g, '')
  const space = text.search(/[ \t]/)
  if (space < 0) return { name: text, arg: '' }
  return { name: text.slice(0, space), arg: text.slice(space).replace(/^[ \t]+/, '') }
}

/** The exec's outcome under the rules and the mode, or undefined when no rule refuses or asks about it. */
export function decideExec(exec: ExecFacts, set: RuleSet, env: DecideEnv): Outcome | undefined {
  // Why before any rule: what runs could be any program, so any rule might be the one it steps around
  if (exec.unresolved) return { decision: 'deny', reason: 'its program is reached through a link procfs answers by who asks (/proc/self/…, /dev/fd/…), which the sandbox cannot follow for the process' }
  let worst: { kind: 'ask' | 'deny'; rule: CompiledRule } | undefined
  for (const words of execNames(exec)) {
    const { part, asked } = decideWords(words, set)
    // an unknown part is no reason to ask here: whatever it runs comes back as an exec
    if (part.verdict === 'deny') {
      worst = { kind: 'deny', rule: part.rule! }
      break
    }
    if (asked && !worst) worst = { kind: 'ask', rule: asked }
    // ...but not what the dynamic loader runs: it maps the program itself, with no exec to stop
    if (isLoader(programName(words[0]))) {
      if (part.verdict === 'ask' && !worst) worst = { kind: 'ask', rule: part.rule! }
      if (part.verdict === 'unknown') {
        const rule = mightMeet(set.bash.deny, undefined) ?? mightMeet(set.bash.ask, undefined)
        if (rule) {
          const outcome = byRule(rule, env)
          return { ...outcome, decision: rule.list === 'deny' ? 'deny' : outcome.decision, reason: `the dynamic loader runs the program it is given with no exec of its own, and ${part.reason ?? 'its arguments are not ones this check reads'}; ${outcome.reason}` }
        }
      }
    }
  }
  if (exec.truncated && worst?.kind !== 'deny') {
    // Why: the arguments past what the launcher read might meet a rule for this program
    const programs = execNames(exec).map((words) => programName(words[0]))
    const rule = mightMeet(set.bash.deny, programs) ?? (worst ? undefined : mightMeet(set.bash.ask, programs))
    if (rule) {
      const outcome = byRule(rule, env)
      return { ...outcome, decision: rule.list === 'deny' ? 'deny' : outcome.decision, reason: `the exec's arguments are longer than the sandbox reads (4096 arguments or 256 KiB), and ${outcome.reason}` }
    }
  }
  return worst ? byRule(worst.rule, env) : undefined
}

/** The argv as one line for a person (each word quoted when it needs to be). */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(' ')
}
