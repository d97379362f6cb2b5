import type { Kernel, Session, ToolScope } from 'dsh'

/** What the adapter needs of a kernel: a `Kernel` from `createKernel()` is one. */
export type KernelHandle = Pick<Kernel, 'ctx' | 'execute'>

export interface AiSdkToolsOptions {
  /** the session every call is logged in; approval asks need it in an open turn */
  session: Session
  /** the visibility scope the tool set and its calls are seen through */
  scope?: ToolScope
}
