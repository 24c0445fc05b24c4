import net from 'node:net';

const handedOut = new Set<number>();

/**
 * A port free on 127.0.0.1 now, never one this process handed out before: the kernel may give the
 * same port to two binds in a row once the first is closed, and a launcher once got one port for
 * both Postgres and Temporal.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
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
