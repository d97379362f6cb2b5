/**
 * The servers of mcp-servers in the project's dsh.yml (`plugins.mcp-servers.servers`), edited
 * with the yaml package's document (comments and the other keys kept). A project without a
 * dsh.yml gets `dsh init`'s file first, so that the kernel keeps the default set it ran with.
 */
import type { Document } from 'yaml'
import { yaml } from '../config/yaml.js'
import { ConfigFileError } from './config-file.js'

export const MCP_SERVERS_PLUGIN = 'mcp-servers'
const SERVERS = ['plugins', MCP_SERVERS_PLUGIN, 'servers']

export class DshYml {
  private readonly doc: Document

  constructor(text: string, readonly file: string) {
    this.doc = yaml().parseDocument(text, { uniqueKeys: true })
    if (this.doc.errors.length > 0) throw new ConfigFileError(`${file}: ${this.doc.errors[0]!.message}; nothing was written`)
    const plugins = this.doc.getIn(['plugins'])
    if (plugins !== undefined && plugins !== null && !yaml().isMap(plugins)) throw new ConfigFileError(`${file}: plugins is not a mapping; nothing was written`)
    // `mcp-servers:` with no keys (its defaults) is null: a mapping to add servers to
    const entry = this.doc.getIn(['plugins', MCP_SERVERS_PLUGIN], true)
    if (entry !== undefined && !yaml().isMap(entry) && (entry as { value?: unknown } | null)?.value != null) throw new ConfigFileError(`${file}: plugins.${MCP_SERVERS_PLUGIN} is not a mapping; nothing was written`)
  }

  servers(): Record<string, unknown> {
    const value = this.doc.getIn(SERVERS)
    return yaml().isMap(value) ? (value.toJSON() as Record<string, unknown>) : {}
  }

  set(name: string, config: unknown): void {
    if (this.doc.getIn(['plugins', MCP_SERVERS_PLUGIN]) == null) this.doc.setIn(['plugins', MCP_SERVERS_PLUGIN], this.doc.createNode({}))
    if (this.doc.getIn(SERVERS) == null) this.doc.setIn(SERVERS, this.doc.createNode({}))
    this.doc.setIn([...SERVERS, name], this.doc.createNode(config))
  }

  remove(name: string): void {
    if (this.doc.hasIn([...SERVERS, name])) this.doc.deleteIn([...SERVERS, name])
  }

  get text(): string {
    return this.doc.toString()
  }
}
