/**
 * What each Claude Code tool name means to a rule: which specifier it takes,
 * and whether the modes count it as read-only. Rules may name every Claude
 * Code tool — also ones dsh lacks (`Task`, `TodoWrite`, `NotebookEdit`, …) —
 * so a team's settings file loads unchanged; rules for tools that are not
 * registered simply never match.
 */

/** How a tool's specifier is read: a command, a path, a domain, or not at all. */
export type SpecifierKind = 'command' | 'path' | 'domain' | 'none'

export const CLAUDE_TOOLS: ReadonlyMap<string, SpecifierKind> = new Map<string, SpecifierKind>([
  ['Bash', 'command'],
  ['Read', 'path'], ['Edit', 'path'], ['Write', 'path'], ['MultiEdit', 'path'], ['NotebookEdit', 'path'], ['NotebookRead', 'path'],
  ['Grep', 'path'], ['Glob', 'path'], ['LS', 'path'],
  ['WebFetch', 'domain'],
  ['WebSearch', 'none'], ['Task', 'none'], ['Agent', 'none'], ['TodoWrite', 'none'], ['TodoRead', 'none'], ['Skill', 'none'],
  ['SlashCommand', 'none'], ['BashOutput', 'none'], ['KillShell', 'none'], ['KillBash', 'none'], ['ExitPlanMode', 'none'],
  ['AskUserQuestion', 'none'], ['ListMcpResourcesTool', 'none'], ['ReadMcpResourceTool', 'none'],
  // Claude Code 2.1's background-command tool (dsh setup denies it with the other built-ins)
  ['Monitor', 'none'],
])

/** Tools that only read: the modes let them run without asking. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['Read', 'Grep', 'Glob', 'LS', 'NotebookRead', 'TodoRead', 'ListMcpResourcesTool', 'ReadMcpResourceTool'])

/** Tools that edit files: `Edit(...)` rules cover all of them, and `acceptEdits` lets them write inside the workspace. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit'])

/** Which rule tools apply to a call of `tool`: Claude Code applies `Read` rules to every file-reading tool and `Edit` rules to every file-editing one. */
export function ruleToolsFor(tool: string): readonly string[] {
  if (tool === 'Read' || tool === 'Grep' || tool === 'Glob' || tool === 'LS' || tool === 'NotebookRead') return tool === 'Read' ? ['Read'] : [tool, 'Read']
  if (tool === 'Edit') return ['Edit']
  if (EDIT_TOOLS.has(tool)) return [tool, 'Edit']
  return [tool]
}

/** The argument holding the path a file tool works on (absent: the workspace). */
export function pathArgument(tool: string, args: Readonly<Record<string, unknown>>): unknown {
  if (tool === 'Grep' || tool === 'Glob' || tool === 'LS') return args.path
  if (tool === 'NotebookEdit' || tool === 'NotebookRead') return args.notebook_path ?? args.file_path
  return args.file_path
}
