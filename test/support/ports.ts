import net from 'node:net';

/**
 * Test servers get ports from 20000-31999, below the kernel's ephemeral range (32768-60999 here):
 * no process's bind(0) or outgoing connection can take one between our check and the server's bind,
 * as happened with bind(0) (the kernel once handed one launcher the same port for Postgres and
 * Temporal). Each jest worker has its own 600 ports, so two workers never pick the same one.
 */
const FIRST_PORT = 20_000;
const PORTS_PER_WORKER = 600;
const firstOfWorker = FIRST_PORT + (Number(process.env.JEST_WORKER_ID ?? 0) % 20) * PORTS_PER_WORKER;
// Test files of a worker run one after another, each with this module anew: a random start spreads them.
let cursor = Math.floor(Math.random() * PORTS_PER_WORKER);
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port free on 127.0.0.1 now, of this jest worker's range, never one this test file was given before. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORTS_PER_WORKER; tried++) {
    const port = firstOfWorker + (cursor++ % PORTS_PER_WORKER);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port in ${firstOfWorker}-${firstOfWorker + PORTS_PER_WORKER - 1}`);
}

/**
 * Occupies `port` on 127.0.0.1 (once a killed server has let go of it), so the server cannot be
 * restarted there until `release()`: an outage as long as the test wants. `drop` closes every
 * connection at once (like a server going away); `silent` accepts and never answers (a hung server).
 */
export async function holdPort(port: number, mode: 'drop' | 'silent' = 'drop', timeoutMs = 10_000): Promise<{ release(): Promise<void> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      if (mode === 'drop') return socket.destroy();
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      return {
        release: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            for (const socket of sockets) socket.destroy();
          }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
