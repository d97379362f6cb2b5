/**
 * The `systemPrompt` service: named sections with an order, assembled into the
 * prompt through the `system-prompt/assemble` waterfall. A section belongs to
 * the plugin that added it and goes away when that plugin is disposed.
 */
import { Context, Service } from 'cordis'
import { KernelError } from '@dsh/kernel'

export interface PromptSection {
  /** unique id, e.g. `tool:bash` or `tools:sdk` */
  id: string
  /** lower comes first; ties keep insertion order (default 0) */
  order: number
  text: string
}

export interface SectionInput {
  id: string
  order?: number
  /** the text, or a function producing it at assembly time */
  text: string | (() => string)
}

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPromptService
  }
  interface Events {
    'system-prompt/assemble'(sections: readonly PromptSection[], next: () => Promise<readonly PromptSection[]>): readonly PromptSection[] | Promise<readonly PromptSection[]>
    'system-prompt/change'(): void
  }
}

interface Entry {
  input: SectionInput
  seq: number
  owner: Context
}

export class SystemPromptService extends Service {
  private entries = new Map<string, Entry>()
  private seq = 0
  private root: Context

  constructor(ctx: Context) {
    super(ctx, 'systemPrompt', true)
    this.root = ctx
  }

  /** Add a section, tied to the calling plugin. Returns its disposer. */
  section(input: SectionInput): () => void {
    if (typeof input?.id !== 'string' || !input.id) throw new KernelError('INVALID_CONFIG', 'a prompt section needs a non-empty string id')
    if (typeof input.text !== 'string' && typeof input.text !== 'function') {
      throw new KernelError('INVALID_CONFIG', `prompt section ${input.id}: text must be a string or a function`)
    }
    const owner = this.ctx
    return owner.effect(() => {
      if (this.entries.has(input.id)) throw new KernelError('INVALID_CONFIG', `prompt section ${input.id} already exists`)
      const entry: Entry = { input, seq: this.seq++, owner }
      this.entries.set(input.id, entry)
      this.changed()
      return () => {
        if (this.entries.get(input.id) !== entry) return
        this.entries.delete(input.id)
        this.changed()
      }
    })
  }

  /** The sections as they stand, sorted by order then insertion. */
  sections(): PromptSection[] {
    return [...this.entries.values()]
      .sort((a, b) => (a.input.order ?? 0) - (b.input.order ?? 0) || a.seq - b.seq)
      .map(({ input }) => ({
        id: input.id,
        order: input.order ?? 0,
        text: typeof input.text === 'function' ? input.text() : input.text,
      }))
  }

  /** Who added each section (for inspection). */
  owners(): Array<{ id: string; owner: Context }> {
    return [...this.entries.values()].map((entry) => ({ id: entry.input.id, owner: entry.owner }))
  }

  /** The final section list after every `system-prompt/assemble` listener. */
  async assembleSections(): Promise<readonly PromptSection[]> {
    const sections = Object.freeze(this.sections())
    return this.root.waterfall('system-prompt/assemble', sections, (input) => input)
  }

  /** The prompt text: the assembled sections joined by blank lines. */
  async assemble(): Promise<string> {
    const sections = await this.assembleSections()
    return sections.map((section) => section.text).filter(Boolean).join('\n\n')
  }

  private changed(): void {
    this.root.emit('system-prompt/change')
  }
}
