/**
 * Control traffic of the test's own, sent after what a confined command was refused: a server
 * accepts connections, and a socket queues datagrams, in the order they came, so once the server has
 * counted the control (`count()` past `before`) it has counted anything that came before it — the
 * event to wait on instead of a fixed sleep before asserting nothing arrived.
 */
import dgram from 'node:dgram'
import net from 'node:net'

async function counted(count: () => number, before: number, what: string, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; count() <= before;) {
    if (Date.now() > end) throw new Error(`the ${what} was never counted`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Connect to `target` (TCP, or a unix socket's path), close, and wait until the server counted it. */
export async function controlConnection(target: net.NetConnectOpts, count: () => number, before: number): Promise<void> {
  await new Promise<void>((resolve, reject) => net.connect(target, function (this: net.Socket) { this.destroy(); resolve() }).on('error', reject))
  await counted(count, before, 'control connection')
}

/** Send one datagram to 127.0.0.1:`port` and wait until the socket counted it. */
export async function controlDatagram(port: number, count: () => number, before: number): Promise<void> {
  const socket = dgram.createSocket('udp4')
  try {
    await new Promise<void>((resolve, reject) => socket.send('control', port, '127.0.0.1', (error) => (error ? reject(error) : resolve())))
  } finally {
    socket.close()
  }
  await counted(count, before, 'control datagram')
}
