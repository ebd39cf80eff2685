import type { Server } from '@grpc/grpc-js';

/** Lets the calls in flight finish, for at most `graceMs` (a client may keep its connection open), then cuts the rest. */
export function shutdownGrpc(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
