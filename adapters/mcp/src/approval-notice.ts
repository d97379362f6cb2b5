/**
 * What a client that cannot answer approval requests (it declared no form
 * elicitation) is told: once at connect, on stderr and as a log message, and
 * again in every refusal of a call that asked — that such calls are refused,
 * and what changes that.
 */

export const NO_ELICITATION = 'this MCP client cannot answer approval requests (it did not declare form elicitation), so every call that asks for approval is refused'

export const REMEDY = 'To allow such calls: connect with a client that supports MCP elicitation; or make them not ask — a preset whose sandbox mode they fit (approval.preset in dsh.yml, e.g. auto for writes in the workspace), an allow rule for them (permissions.allow in .claude/settings.json, read by claude-code-permissions), or a change to the config of the plugin, hook or rule that asked; or load an approver plugin that answers approval/request (see docs/plugins.md).'

/** The notice at connect. */
export function connectNotice(): string {
  return `${NO_ELICITATION}. ${REMEDY}`
}

/** The reason of a refused approval request: the kernel's own reason, then why the client was not asked, then the remedy. */
export function refusalReason(kernelReason: string): string {
  return `${kernelReason}; ${NO_ELICITATION}. ${REMEDY}`
}
