/** Pool bookkeeping; connections are only created here, never connected (ldapts connects on first use). */
import { jest } from '@jest/globals';
import net from 'node:net';
import { Client, InvalidCredentialsError } from 'ldapts';
import { closedPort } from '../test/extauth/helpers.js';
import { LdapPool, LdapUnavailableError, isConnectionError, isRetryable, socketFailure } from './pool.js';

const settings = { initialSize: 0, maxSize: 2, connectTimeoutMs: 1000, operationTimeoutMs: 200 };

test('never more than maxSize connections in use; waiting checks get the released ones', async () => {
  const pool = new LdapPool('ldap://127.0.0.1:1', settings);
  let peak = 0;
  const clients = new Set<unknown>();
  await Promise.all(
    Array.from({ length: 6 }, () =>
      pool.use(async (conn) => {
        clients.add(conn.client);
        peak = Math.max(peak, pool.stats().inUse);
        await new Promise((r) => setImmediate(r));
      }),
    ),
  );
  expect(peak).toBe(2);
  expect(clients.size).toBe(2);
  expect(pool.stats()).toEqual({ size: 2, inUse: 0, idle: 2, waiting: 0 });
  await pool.close();
});

test('a connection error drops the connection; an LDAP result error keeps it', async () => {
  const pool = new LdapPool('ldap://127.0.0.1:1', settings);
  await expect(pool.use(async () => Promise.reject(new InvalidCredentialsError('no')))).rejects.toThrow(
    InvalidCredentialsError,
  );
  expect(pool.stats().size).toBe(1);
  // The shape of Node's system errors, as ldapts passes them on from a failed connect.
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  await expect(pool.use(async () => Promise.reject(reset))).rejects.toThrow('ECONNRESET');
  expect(pool.stats().size).toBe(0);
  await pool.close();
});

test('waiting longer than the operation timeout for a connection is LdapUnavailableError', async () => {
  const pool = new LdapPool('ldap://127.0.0.1:1', { ...settings, maxSize: 1 });
  let release!: () => void;
  const held = pool.use(() => new Promise<void>((r) => (release = r)));
  await expect(pool.use(async () => undefined)).rejects.toThrow(LdapUnavailableError);
  release();
  await held;
  await pool.close();
  await expect(pool.use(async () => undefined)).rejects.toThrow('closed');
});

test('each waiting check gets its full operation timeout, counted from when it began to wait', async () => {
  jest.useFakeTimers(); // performance.now() too
  try {
    const timeout = settings.operationTimeoutMs;
    const pool = new LdapPool('ldap://127.0.0.1:1', { ...settings, maxSize: 1 });
    let release!: () => void;
    const held = pool.use(() => new Promise<void>((r) => (release = r)));
    const outcomes: { waiter: string; at: number; err: unknown }[] = [];
    const wait = (waiter: string) =>
      pool
        .use(async () => undefined)
        .then(
          () => outcomes.push({ waiter, at: performance.now(), err: undefined }),
          (err: unknown) => outcomes.push({ waiter, at: performance.now(), err }),
        );
    const began = performance.now();
    // The first waiter is served before its deadline; the next two began later and must not expire at the first's deadline.
    const first = pool.use(() => new Promise<void>(() => undefined));
    await jest.advanceTimersByTimeAsync(timeout / 2);
    const later = [wait('second'), wait('third')];
    release();
    await held;
    await jest.advanceTimersByTimeAsync(timeout - 1); // past the first's deadline, 1 ms before the others'
    expect(outcomes).toEqual([]);
    expect(pool.stats().waiting).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all(later);
    expect(outcomes.map((o) => [o.waiter, o.at - began, o.err instanceof LdapUnavailableError])).toEqual([
      ['second', timeout * 1.5, true],
      ['third', timeout * 1.5, true],
    ]);
    expect(pool.stats().waiting).toBe(0);
    void first;
    await pool.close();
  } finally {
    jest.useRealTimers();
  }
});

test('a connection goes back to the pool whatever the work does: throw, reject, or return a plain value', async () => {
  const pool = new LdapPool('ldap://127.0.0.1:1', { ...settings, maxSize: 1 });
  await expect(
    pool.use(() => {
      throw new Error('thrown');
    }),
  ).rejects.toThrow('thrown');
  await expect(pool.use(() => Promise.reject(new Error('rejected')))).rejects.toThrow('rejected');
  await expect(pool.use((() => 'plain') as unknown as () => Promise<string>)).resolves.toBe('plain');
  expect(pool.stats()).toMatchObject({ inUse: 0, idle: 1, waiting: 0 });
  await pool.close();
});

describe('connection failures, from the errors ldapts raises on real sockets', () => {
  const servers: net.Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  /** A loopback server; `onData` decides what happens to what the client sends. */
  async function listen(onData: (socket: net.Socket) => void): Promise<string> {
    const server = net.createServer((socket) => socket.on('data', () => onData(socket)).on('error', () => undefined));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  async function failure(url: string, op: (c: Client) => Promise<unknown>): Promise<unknown> {
    const client = new Client({ url, timeout: 200, connectTimeout: 1000 });
    try {
      await op(client);
    } catch (err) {
      return err;
    } finally {
      await client.unbind().catch(() => undefined);
    }
    throw new Error('the operation succeeded');
  }

  test('connection refused: nothing was sent; a connection error worth one retry', async () => {
    const err = await failure(`ldap://127.0.0.1:${await closedPort()}`, (c) => c.bind('cn=x', 'pw'));
    expect(socketFailure(err)).toBe('unsent');
    expect([isConnectionError(err), isRetryable(err)]).toEqual([true, true]);
  });

  test('connection closed after the request was sent: unanswered', async () => {
    const err = await failure(await listen((s) => s.destroy()), (c) => c.bind('cn=x', 'pw'));
    expect(socketFailure(err)).toBe('unanswered');
    expect(isConnectionError(err)).toBe(true);
  });

  test('a filter ldapts cannot parse fails before anything is sent: not a connection error, never retried', async () => {
    let received = 0;
    const err = await failure(await listen(() => received++), (c) => c.search('dc=x', { filter: '(uid=x' }));
    expect([isConnectionError(err), isRetryable(err), received]).toEqual([false, false, 0]);
  });

  test('no answer within the operation timeout: a connection error, not retried', async () => {
    const err = await failure(await listen(() => undefined), (c) => c.bind('cn=x', 'pw'));
    expect([isConnectionError(err), isRetryable(err), socketFailure(err)]).toEqual([true, false, undefined]);
  });
});
