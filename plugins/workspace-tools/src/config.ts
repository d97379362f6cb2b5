/**
 * The configuration of workspace-tools, checked when the plugin loads.
 */
import Schema from 'schemastery'

export interface Config {
  /** the workspace the tools work in (default: the sandbox service's workspace) */
  workspace?: string
  /** more directories read and ls may open (real paths are checked) */
  readableRoots: string[]
  /** the largest file read or edit loads */
  maxReadBytes: number
  /** the most UTF-8 bytes of lines one read returns */
  maxReadOutputBytes: number
  /** how much of each of stdout and stderr bash keeps, and of grep's and glob's output */
  maxOutputBytes: number
  /** how long one grep or glob may walk the tree */
  searchTimeoutMs: number
  /** how many files one grep or glob may visit */
  maxSearchFiles: number
  /** bash's deadline when the call gives none */
  bashTimeoutMs: number
  /** web_fetch: how long one fetch may take, redirects, body and conversion included */
  webFetchTimeoutMs: number
  /** web_fetch: the most bytes of body read (after decompression), and of text returned */
  webFetchMaxBytes: number
  /** web_fetch: how many redirects one fetch follows */
  webFetchMaxRedirects: number
}

export const MAX_BASH_TIMEOUT_MS = 600_000

export const Config: Schema<Config> = Schema.object({
  workspace: Schema.string().description('The workspace directory (absolute). Default: the sandbox service\'s workspace.'),
  readableRoots: Schema.array(Schema.string()).default([])
    .description('More directories that read and ls may open, besides the workspace, the writable roots and this session\'s spill directory.'),
  maxReadBytes: Schema.natural().min(1).default(1024 * 1024).description('The largest file read and edit load, in bytes.'),
  maxReadOutputBytes: Schema.natural().min(1).default(40_000).description('The most UTF-8 bytes of lines one read returns (whole lines; at least one): the rest is said with the offset to read on. Kept under what clients show inline (Claude Code moves a larger tool result to a file and shows the model 2 KB of it).'),
  maxOutputBytes: Schema.natural().min(1).default(30_000).description('How many bytes of stdout and of stderr bash keeps (the rest is counted and dropped), and the most grep and glob print.'),
  searchTimeoutMs: Schema.natural().min(1).default(20_000).description('How long one grep or glob may walk the tree; then it returns what it found, marked incomplete.'),
  maxSearchFiles: Schema.natural().min(1).default(200_000).description('How many files one grep or glob may visit; then it returns what it found, marked incomplete.'),
  bashTimeoutMs: Schema.natural().min(1).max(MAX_BASH_TIMEOUT_MS).default(120_000).description('bash\'s deadline when the call gives no timeout.'),
  webFetchTimeoutMs: Schema.natural().min(1).max(MAX_BASH_TIMEOUT_MS).default(30_000).description('web_fetch: how long one fetch may take in ms — every connection, redirect, the body and its conversion to Markdown.'),
  webFetchMaxBytes: Schema.natural().min(1024).default(2 * 1024 * 1024).description('web_fetch: the most bytes of a response body read (after decompression; the rest is not fetched), and of the text returned.'),
  webFetchMaxRedirects: Schema.natural().max(20).default(5).description('web_fetch: how many redirects one fetch follows; each is checked against the network policy as the first request is.'),
})
