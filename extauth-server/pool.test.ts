/** Pool bookkeeping; connections are only created here, never connected (ldapts connects on first use). */
import { InvalidCredentialsError } from 'ldapts';
import { LdapPool, LdapUnavailableError } from './pool.js';

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
  await expect(pool.use(async () => Promise.reject(new InvalidCredentialsError('no')))).rejects.toThrow(InvalidCredentialsError);
  expect(pool.stats().size).toBe(1);
  await expect(pool.use(async () => Promise.reject(new Error('socket closed')))).rejects.toThrow('socket closed');
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
