/**
 * The host's end of `landlock-run --exec-notify PATH`: one unix socket per
 * confined call, in a directory of its own (0700), that the launcher's
 * supervisor connects to before the command exists. It takes that one
 * connection and stops listening (the path is gone before the command can
 * start), then answers each exec the kernel stopped with the call's
 * `ExecRules`: 0 lets it go on, EACCES refuses it. Answers go back as they
 * are decided, so an exec waiting for an approval holds up no other.
 *
 * Fail closed: a check that throws refuses its exec; a malformed frame ends
 * the connection, after which the launcher refuses every exec.
 * Wire format: native/landlock-run/exec-notify.c.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeError } from '@dsh/kernel'
import type { ConfineCall } from '../network/events.js'
import type { ExecRequest, ExecRules, ExecVerdict } from '../types.js'

const EACCES = 13
const FLAG_TRUNCATED = 1
/** the launcher could not know the program (a magic link, /proc/self) and refused the exec already: this frame is its record */
const FLAG_UNRESOLVED = 2
/** the launcher's own cap on a request (256 KiB), with room for its header */
const MAX_FRAME = 256 * 1024 + 64

export interface ExecNotifyLease {
  /** the socket to pass as `--exec-notify` */
  readonly path: string
  /** stop answering (once the command is gone) and remove the socket's directory */
  close(): void
}

/** Parse one request frame (after its length). */
export function parseExecRequest(frame: Buffer): { id: bigint; request: ExecRequest } {
  if (frame.length < 20) throw new Error(`exec request of ${frame.length} bytes is shorter than its header`)
  const id = frame.readBigUInt64LE(0)
  const pid = frame.readUInt32LE(8)
  const flags = frame.readUInt32LE(12)
  const argc = frame.readUInt32LE(16)
  const strings = frame.subarray(20).toString('utf8').split('\0')
  // the last split piece is what follows the final NUL: empty
  if (strings.length !== argc + 6) throw new Error(`exec request says ${argc} arguments and carries ${strings.length - 6}`)
  const lines = strings[2] ? strings[2].split('\n') : []
  // Why split whenever there are lines: one missing interpreter's real path is ""
  const reals = lines.length ? strings[3].split('\n') : strings[3] ? [strings[3]] : []
  if (lines.length !== reals.length) throw new Error(`exec request has ${lines.length} #! lines and ${reals.length} interpreter paths`)
  const interpreters = lines.map((line, i) => ({ line, realPath: reals[i] }))
  const loaded = strings[4 + argc] ? strings[4 + argc].split('\n').map(parseLoaded) : []
  return { id, request: { path: strings[0], realPath: strings[1], ...(interpreters.length ? { interpreters } : {}), ...(loaded.length ? { loaded } : {}), argv: strings.slice(4, 4 + argc), truncated: (flags & FLAG_TRUNCATED) !== 0, ...((flags & FLAG_UNRESOLVED) !== 0 ? { unresolved: true } : {}), pid } }
}

/** One "LEVEL\tREAL" of the loaders' programs. */
function parseLoaded(entry: string): { level: number; realPath: string } {
  const tab = entry.indexOf('\t')
  const level = Number(entry.slice(0, tab))
  if (tab < 0 || !Number.isInteger(level) || level < -1) throw new Error(`exec request has a loaded program ${JSON.stringify(entry)}`)
  return { level, realPath: entry.slice(tab + 1) }
}

function answer(socket: Socket, id: bigint, errno: number): void {
  const out = Buffer.alloc(16)
  out.writeUInt32LE(12, 0)
  out.writeBigUInt64LE(id, 4)
  out.writeUInt32LE(errno, 12)
  // a command gone meanwhile: nobody waits for the answer
  if (!socket.destroyed) socket.write(out)
}

export const UNRESOLVED_REASON = 'its program is reached through a link procfs answers by who asks (/proc/self/…, /dev/fd/…, /proc/PID/root/…), which the sandbox cannot follow for the process'

async function decide(rules: ExecRules, request: ExecRequest, call: ConfineCall): Promise<ExecVerdict> {
  try {
    const verdict = await rules.check(request, call)
    // Why whatever the check says: the launcher refused it already; the check records it
    if (request.unresolved) return verdict && verdict.allow === false ? verdict : { allow: false, reason: `exec of ${request.argv.join(' ')} refused: ${UNRESOLVED_REASON}` }
    if (verdict && verdict.allow === true) return verdict
    if (verdict && verdict.allow === false) return verdict
    return { allow: false, reason: 'the exec check answered no verdict' }
  } catch (error) {
    return { allow: false, reason: `the exec check failed: ${describeError(error)}` }
  }
}

function serve(socket: Socket, rules: ExecRules, call: ConfineCall): void {
  let buffered: Buffer = Buffer.alloc(0)
  socket.on('error', () => {})
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk
    while (buffered.length >= 4) {
      const length = buffered.readUInt32LE(0)
      if (length > MAX_FRAME) return void socket.destroy()
      if (buffered.length < 4 + length) break
      const frame = buffered.subarray(4, 4 + length)
      buffered = buffered.subarray(4 + length)
      let parsed
      try {
        parsed = parseExecRequest(frame)
      } catch {
        return void socket.destroy()
      }
      const { id, request } = parsed
      void decide(rules, request, call).then((verdict) => {
        if (!verdict.allow) {
          try {
            call.observeExec?.({ argv: request.argv, program: request.realPath || request.path, reason: verdict.reason, ...(verdict.rule ? { rule: verdict.rule } : {}) })
          } catch {}
        }
        answer(socket, id, verdict.allow ? 0 : EACCES)
      })
    }
  })
}

/** Listen for one call's launcher; resolves once the socket is listening. */
export async function openExecNotify(rules: ExecRules, call: ConfineCall): Promise<ExecNotifyLease> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-exec-'))
  const path = join(dir, 's')
  const sockets = new Set<Socket>()
  let server: Server | undefined
  const stopListening = () => {
    server?.close()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    server = createServer({ allowHalfOpen: false }, (socket) => {
      if (sockets.size) return void socket.destroy()
      sockets.add(socket)
      // Why one connection only: the supervisor's, made before the command exists; nothing else may answer for it
      stopListening()
      serve(socket, rules, call)
    })
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject)
      server!.listen(path, () => resolve())
    })
  } catch (error) {
    stopListening()
    throw error
  }
  return {
    path,
    close() {
      stopListening()
      for (const socket of sockets) socket.destroy()
    },
  }
}
