/**
 * Claude Code's variable expansion in a server entry (its MCP docs, "Environment variable
 * expansion"): `${VAR}` is VAR's value, `${VAR:-default}` VAR's value or `default` when VAR is
 * unset or empty — in `command`, `args`, `env` values, `url` and `headers` values. `$VAR` without
 * braces stays as written. A `${VAR}` with VAR unset and no default is an error naming VAR (Claude
 * Code then fails to parse the entry); dsh leaves the server out rather than start it with the
 * literal text.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export class UnsetVariable extends Error {
  constructor(readonly variable: string, readonly where: string) {
    super(`${where} uses \${${variable}}, and ${variable} is not set (give it a value, or a default: \${${variable}:-value})`)
  }
}

/** `text` with every `${VAR}` and `${VAR:-default}` replaced; throws UnsetVariable naming the first unset one. */
export function expandClaudeVariables(text: string, env: Record<string, string | undefined>, where: string): string {
  return text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    const value = Object.hasOwn(env, name) ? env[name] : undefined
    if (value !== undefined && value !== '') return value
    if (fallback !== undefined) return fallback
    if (value === '') return ''
    throw new UnsetVariable(name, where)
  })
}
