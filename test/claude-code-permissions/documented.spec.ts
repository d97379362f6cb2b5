/**
 * Rule semantics as Claude Code's permissions page states them today (the
 * version followed is named in docs/decisions/2026-12-01-permission-rule-matching.md),
 * each with a twin that must not match.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { compileRuleSet, INLINE, loadShellParser } from '@dsh/claude-code-permissions'
import { decider, HOME, WORKSPACE } from './helpers.js'

beforeAll(() => loadShellParser())

describe('a Read deny covers editing and writing the same path', () => {
  it('Edit, Write (a new file too) and MultiEdit are denied by Read(./secrets/**); NotebookEdit is not covered', () => {
    const d = decider({ deny: ['Read(./secrets/**)'], defaultMode: 'acceptEdits' })
    for (const tool of ['Edit', 'Write', 'MultiEdit']) {
      const outcome = d(tool, { file_path: `${WORKSPACE}/secrets/new-file.txt`, content: 'x', old_string: 'a', new_string: 'b' })
      expect(outcome.decision, tool).toBe('deny')
      expect(outcome.rule?.text, tool).toBe('Read(./secrets/**)')
    }
    expect(d('NotebookEdit', { notebook_path: `${WORKSPACE}/secrets/n.ipynb` }).decision).toBe('allow')
    // twin: a path outside the rule is edited as the mode says
    expect(d('Write', { file_path: `${WORKSPACE}/public/a.txt`, content: 'x' }).decision).toBe('allow')
  })
})

describe('a trailing space-star matches with or without arguments, also after another wildcard', () => {
  it('Bash(* --help *) matches npm --help and npm --help install, not npm --helpx', () => {
    const d = decider({ allow: ['Bash(* --help *)', 'Bash(git * main)'] })
    expect(d.bash('npm --help').decision).toBe('allow')
    expect(d.bash('npm --help install').decision).toBe('allow')
    expect(d.bash('npm --helpx').decision).toBe('ask')
    expect(d.bash('git log --oneline main').decision).toBe('allow')
    expect(d.bash('git log main2').decision).toBe('ask')
  })
})

describe('a one-directory pattern: any depth in deny and ask, the workspace\'s own in allow', () => {
  it('Read(secrets/**) denies a nested secrets/ and beats Read(src/**) there', () => {
    const d = decider({ deny: ['Read(secrets/**)'], allow: ['Read(src/**)'] })
    expect(d('Read', { file_path: `${WORKSPACE}/secrets/a` }).decision).toBe('deny')
    const nested = d('Read', { file_path: `${WORKSPACE}/src/secrets/key.txt` })
    expect(nested.decision).toBe('deny')
    expect(nested.rule?.text).toBe('Read(secrets/**)')
    expect(d('Read', { file_path: `${WORKSPACE}/src/public/a` }).rule?.text).toBe('Read(src/**)')
  })

  it('an allow Edit(src/**) is the workspace\'s src only; /src/** and ./src/** are anchored in every list', () => {
    const allow = decider({ allow: ['Edit(src/**)'] })
    expect(allow('Edit', { file_path: `${WORKSPACE}/src/app.ts` }).decision).toBe('allow')
    expect(allow('Edit', { file_path: `${WORKSPACE}/vendor/pkg/src/lib.js` }).decision).toBe('ask')
    const ask = decider({ ask: ['Edit(src/**)'], allow: ['mcp__dsh__edit'] })
    expect(ask('Edit', { file_path: `${WORKSPACE}/vendor/pkg/src/lib.js` }).decision).toBe('ask')
    for (const rule of ['Edit(/src/**)', 'Edit(./src/**)']) {
      const d = decider({ deny: [rule] })
      expect(d('Edit', { file_path: `${WORKSPACE}/src/app.ts` }).decision, rule).toBe('deny')
      expect(d('Edit', { file_path: `${WORKSPACE}/vendor/pkg/src/lib.js` }).decision, rule).toBe('ask')
    }
    // a pattern with more segments stays where it is written
    expect(decider({ deny: ['Edit(src/components/**)'] })('Edit', { file_path: `${WORKSPACE}/lib/src/components/a.ts` }).decision).toBe('ask')
  })
})

describe('path rules Claude Code does not consult', () => {
  it('an allow for Write(…), Glob(…) or MultiEdit(…) allows nothing; Edit(…) does; their deny still refuses', () => {
    const d = decider({ allow: ['Write(docs/**)', 'MultiEdit(docs/**)'] })
    expect(d('Write', { file_path: `${WORKSPACE}/docs/a.md`, content: 'x' }).decision).toBe('ask')
    expect(decider({ allow: ['Edit(docs/**)'] })('Write', { file_path: `${WORKSPACE}/docs/a.md`, content: 'x' }).decision).toBe('allow')
    expect(decider({ allow: ['Glob(/etc/**)'] })('Glob', { pattern: '*', path: '/etc' }).decision).toBe('ask')
    expect(decider({ deny: ['Write(docs/**)'] })('Write', { file_path: `${WORKSPACE}/docs/a.md`, content: 'x' }).decision).toBe('deny')
  })
})

describe('tool-name globs', () => {
  it('load, and in deny and ask match dsh\'s tools by their MCP names', () => {
    expect(() => compileRuleSet([{ source: INLINE, root: WORKSPACE, permissions: { deny: ['*', 'mcp__*'], allow: ['*', 'mcp__github__get_*'] } }], { workspace: WORKSPACE, home: HOME, extraTools: new Set() })).not.toThrow()
    for (const rule of ['*', 'mcp__*', 'mcp__dsh__*']) {
      const d = decider({ deny: [rule] })
      expect(d.bash('ls').decision, rule).toBe('deny')
      expect(d('Read', { file_path: 'a' }).decision, rule).toBe('deny')
    }
    expect(decider({ ask: ['mcp__dsh__b*'] }).bash('ls').rule?.text).toBe('mcp__dsh__b*')
    // an allow glob counts only after a literal mcp__<server>__
    expect(decider({ allow: ['*'] }).bash('ls').decision).toBe('ask')
    expect(decider({ allow: ['mcp__dsh__b*'] }).bash('ls').decision).toBe('allow')
    expect(decider({ allow: ['mcp__github__get_*'] })('mcp__github__get_issue', {}).decision).toBe('allow')
    expect(decider({ allow: ['mcp__github__get_*'] })('mcp__github__create_issue', {}).decision).toBe('ask')
    // a glob over the built-in names is about the client's own tools, as a bare built-in name is
    expect(decider({ deny: ['B*'] }).bash('ls').decision).toBe('ask')
  })
})
