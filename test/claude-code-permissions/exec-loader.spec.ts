// The dynamic loader at an exec (wrappers.ts isLoader, exec-decide.ts): `ld.so /bin/rm x` maps rm
// and runs it in the loader's own process, so no exec of rm ever reaches the sandbox. The loader's
// execs are asked about whenever a deny or an ask rule exists, and what it runs is decided from its
// argv: a deny or an ask of the program it runs holds, and arguments this check cannot read
// refuse the exec (what would run is not known).
import { describe, expect, it } from 'vitest'
import { compileRuleSet, decideExec, execPrograms, INLINE, isLoader, loadShellParser, type ExecFacts } from '@dsh/claude-code-permissions'

await loadShellParser()
const set = (permissions: Record<string, string[]>) => compileRuleSet([{ source: INLINE, root: '/w', permissions }], { workspace: '/w', home: '/w', extraTools: new Set() })
const REAL = '/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'
const exec = (argv: string[]): ExecFacts => ({ path: argv[0], realPath: REAL, argv, truncated: false })

describe('the dynamic loader at an exec', () => {
  it('knows the loaders by name, not other libraries', () => {
    for (const name of ['ld-linux-x86-64.so.2', 'ld-linux-aarch64.so.1', 'ld-musl-x86_64.so.1', 'ld-2.31.so', 'ld.so', 'ld.so.1', 'ld64.so.2']) expect(isLoader(name), name).toBe(true)
    for (const name of ['libc.so.6', 'ld', 'ldd', 'ldconfig', 'old.so', 'ld-linux-x86-64.so.2.bak']) expect(isLoader(name), name).toBe(false)
  })

  it('is listed for the launcher with deny rules and with ask rules alone', () => {
    expect(execPrograms(set({ deny: ['Bash(rm:*)'] }))).toContain('ld-linux-x86-64.so.2')
    expect(execPrograms(set({ ask: ['Bash(git push:*)'] }))).toContain('ld-linux-x86-64.so.2')
  })

  it('refuses what a deny rule names, through its options; asks what an ask rule names; lets other programs go on', () => {
    const rules = set({ deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] })
    const env = { set: rules, mode: 'default' as const, workspace: '/w', directories: ['/w'] }
    expect(decideExec(exec(['/lib64/ld-linux-x86-64.so.2', '/bin/rm', 'x']), rules, env)?.decision).toBe('deny')
    expect(decideExec(exec(['ld', '--library-path', '/lib', '--argv0', 'ls', '/bin/rm', '-rf', '/']), rules, env)?.decision).toBe('deny')
    expect(decideExec(exec(['/lib64/ld-linux-x86-64.so.2', '/usr/bin/git', 'push', 'origin']), rules, env)).toMatchObject({ decision: 'ask', rule: { text: 'Bash(git push:*)' } })
    expect(decideExec(exec(['/lib64/ld-linux-x86-64.so.2', '/bin/ls', '-l']), rules, env)).toBeUndefined()
  })

  it('refuses an exec whose loader options it cannot read (what would run is not known)', () => {
    const rules = set({ deny: ['Bash(rm:*)'] })
    const env = { set: rules, mode: 'default' as const, workspace: '/w', directories: ['/w'] }
    const outcome = decideExec(exec(['/lib64/ld-linux-x86-64.so.2', '--new-option', '/bin/ls']), rules, env)
    expect(outcome?.decision).toBe('deny')
    expect(outcome?.reason).toMatch(/dynamic loader runs the program it is given with no exec of its own/)
  })
})
