import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

let counter = 0

/** A tmux server of our own (its own socket), running one command in a 120×40 pane. */
export class Tmux {
  readonly socket = `dsh-ui-approval-${process.pid}-${++counter}`

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' })
  }

  start(command: string, cwd: string): void {
    this.tmux('new-session', '-d', '-s', 'ui', '-x', '120', '-y', '40', '-c', cwd, command)
  }

  /** Press keys by tmux name (`y`, `Enter`, `Escape`). */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'ui', ...keys)
  }

  /** Type text literally. */
  type(text: string): void {
    this.tmux('send-keys', '-t', 'ui', '-l', text)
  }

  screen(): string {
    try {
      return this.tmux('capture-pane', '-p', '-J', '-t', 'ui', '-S', '-200')
    } catch {
      return ''
    }
  }

  /** Poll the pane until `test` holds; the error shows the screen. */
  async waitFor(test: (screen: string) => boolean, what: string, ms = 15_000): Promise<string> {
    const deadline = Date.now() + ms
    for (;;) {
      const screen = this.screen()
      if (test(screen)) return screen
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  kill(): void {
    try { this.tmux('kill-server') } catch {}
    // the server may leave its socket file behind
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true })
  }
}

/** The JSON lines the fixture wrote so far. */
export function results(path: string): any[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

export async function waitForResults(path: string, test: (lines: any[]) => boolean, what: string, ms = 15_000): Promise<any[]> {
  const deadline = Date.now() + ms
  for (;;) {
    const lines = results(path)
    if (test(lines)) return lines
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; results so far: ${JSON.stringify(lines)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
