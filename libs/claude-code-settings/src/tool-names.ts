/**
 * Our tool names → the names Claude Code's hooks and permission rules use.
 * The tools' argument shapes already match Claude Code's, so only the name
 * changes. A tool with no entry is seen under its own name (an MCP tool named
 * `mcp__server__tool`).
 */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  bash: 'Bash',
  read: 'Read',
  write: 'Write',
  edit: 'Edit',
  grep: 'Grep',
  glob: 'Glob',
  // Claude Code's listing tool had this name and `{ path }` input, like ours
  ls: 'LS',
  // `{ url, prompt }`, like Claude Code's: its `WebFetch(domain:…)` rules and hook matchers apply
  web_fetch: 'WebFetch',
})

/** A lookup over the built-in table with `overrides` on top. */
export function claudeToolNamer(overrides: Readonly<Record<string, string>> = {}): (name: string) => string {
  // a Map: a tool named "constructor" or "__proto__" must not find Object's properties
  const names = new Map(Object.entries(CLAUDE_TOOL_NAMES))
  for (const [ours, theirs] of Object.entries(overrides)) names.set(ours, theirs)
  return (name) => names.get(name) ?? name
}
