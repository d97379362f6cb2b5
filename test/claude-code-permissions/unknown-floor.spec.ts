/**
 * Adversarial: no preset or mode is weaker than the rules. A command whose
 * program cannot be known before the run (an expansion, a substitution, brace
 * expansion, an unreadable line) may be the denied one: where a Bash deny or
 * ask rule might apply it asks — or is denied where nothing asks — under every
 * preset and mode, and the rule is named. A literal denied program hidden
 * behind syntax the grammar used to miss (`<>`, words after a redirection)
 * is denied outright.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { loadShellParser, MODES, PRESETS, type PermissionMode, type Preset } from '@dsh/claude-code-permissions'
import { decider } from './helpers.js'

beforeAll(() => loadShellParser())

const RULES = { deny: ['Bash(rm:*)', 'Bash(curl:*)'] }
const NEVER_ASKS = (mode: PermissionMode, preset: Preset | undefined) => preset === 'never' || mode === 'dontAsk' || mode === 'bypassPermissions' || mode === 'plan'

const DISGUISED = [
  '$(echo rm) x',
  'a=rm; $a x',
  '${RM:-rm} x',
  'rm${IFS}x',
  "bash -c '{rm,x}'",
  'c=curl; $c https://example.com',
  '`echo rm` x',
  '"$(printf rm)" x',
  'eval "$CMD"',
  'sudo --weird-option rm x',
  'ls; $X',
  'ls $Y; $(echo rm) x',
]

const HIDDEN = [
  'true 3<>x; rm x',
  'exec 3<>x; rm x',
  'cat <>x; rm x',
  'rm 2>/dev/null x',
  'true {fd}<>x; rm x',
]

const combos: Array<[PermissionMode, Preset | undefined]> = MODES.flatMap((mode) => [undefined, ...PRESETS].map((preset) => [mode, preset] as [PermissionMode, Preset | undefined]))

describe('a command whose program is unknown, under every mode and preset', () => {
  for (const [mode, preset] of combos) {
    it(`mode ${mode}, preset ${preset ?? 'none'}: asks or denies, naming the rule`, () => {
      const d = decider({ ...RULES, defaultMode: mode }, { preset })
      for (const command of DISGUISED) {
        const outcome = d.bash(command)
        expect(outcome.decision, `${command}: ${outcome.reason}`).toBe(NEVER_ASKS(mode, preset) ? 'deny' : 'ask')
        if (mode !== 'plan') expect(outcome.rule?.text, command).toMatch(/^Bash\((rm|curl):\*\)$/)
        if (mode !== 'plan') expect(outcome.reason, command).toMatch(/might apply; .*write the program names literally/)
      }
    })
  }

  it('an ask rule that might apply asks under on-request too, and is named', () => {
    const d = decider({ ask: ['Bash(git push:*)'] }, { preset: 'on-request' })
    expect(d.bash('$(echo git) push').decision).toBe('ask')
    expect(d.bash('$(echo git) push').rule?.text).toBe('Bash(git push:*)')
    // a part the ask rule matched still asks when another part is unknown
    const mixed = d.bash('git push; ls $X')
    expect(mixed.decision).toBe('ask')
    expect(mixed.rule?.text).toBe('Bash(git push:*)')
    expect(decider({ ask: ['Bash(sudo:*)'] }, { preset: 'on-request' }).bash('sudo --weird rm x').decision).toBe('ask')
  })

  it('twins: an unknown argument of a program no rule names still runs confined under on-request', () => {
    const d = decider(RULES, { preset: 'on-request' })
    expect(d.bash('ls $HOME').decision).toBe('allow')
    expect(d.bash('echo "$(date)"').decision).toBe('allow')
    // with no Bash rule at all, an unknown program is the sandbox's business, as before
    expect(decider({}, { preset: 'on-request' }).bash('$(echo rm) x').decision).toBe('allow')
  })
})

describe('a literal denied program behind syntax the grammar used to miss', () => {
  for (const [mode, preset] of combos) {
    it(`mode ${mode}, preset ${preset ?? 'none'}: denied by the rule`, () => {
      const d = decider({ ...RULES, defaultMode: mode }, { preset })
      for (const command of HIDDEN) {
        const outcome = d.bash(command)
        expect(outcome.decision, `${command}: ${outcome.reason}`).toBe('deny')
        if (mode !== 'plan') expect(outcome.rule?.text, command).toBe('Bash(rm:*)')
      }
    })
  }

  it('words after a redirection are arguments: an argument-level deny is not stepped around', () => {
    const d = decider({ allow: ['mcp__dsh__bash'], deny: ['Bash(rm -rf *)', 'Bash(git push --force *)'] })
    for (const command of ['rm 2>x -rf /', 'rm >x -rf /', 'rm -r 2>&1 -f /', 'rm >&2 -rf /', 'cat <<E 2>x && rm &>y -rf /\nE', 'git push 2>/dev/null --force origin', 'rm <<E -rf /\nE']) {
      expect(d.bash(command).decision, command).toBe('deny')
    }
    // a redirection that closes a descriptor takes no target: what follows is an argument (or the line asks)
    expect(d.bash('rm >&- -rf /').decision).not.toBe('allow')
  })
})
