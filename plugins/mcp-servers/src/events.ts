/**
 * What mcp-servers tells the kernel's listeners (observe-only cordis events).
 */
declare module 'cordis' {
  interface Events {
    /** a server was given up after repeated failures: its tools are gone until the config is reloaded */
    'mcp-servers/exited'(info: { server: string; failures: number; reason: string }): void
    /** an upstream tool was left out, and why (its name, its schema) */
    'mcp-servers/skipped'(info: { server: string; tool: string; reason: string }): void
  }
}

export {}
