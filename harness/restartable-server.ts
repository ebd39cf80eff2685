/**
 * An HTTP server a test takes off the network and puts back on the same
 * port (as a provider that goes down and comes back): stop() cuts open
 * connections too, so a client sees the outage at once.
 */
import type { Server } from 'node:http';

export interface RestartableServer {
  /** Listens on the port (again); does nothing while listening. */
  start(): Promise<void>;
  /** Stops listening and cuts open connections. */
  stop(): Promise<void>;
}

/** `listen` starts a server on 127.0.0.1:`port` and calls `ready` once it listens. */
export function restartableServer(listen: (ready: () => void) => Server): RestartableServer {
  let server: Server | undefined;
  return {
    async start() {
      if (server) return;
      await new Promise<void>((resolve, reject) => {
        server = listen(() => resolve());
        server.once('error', reject);
      });
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      const closed = new Promise((resolve) => s.close(resolve));
      s.closeAllConnections();
      await closed;
    },
  };
}
