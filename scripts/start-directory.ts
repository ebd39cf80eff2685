/**
 * The example LDAP directory on loopback for the local stack: Debian's slapd
 * (harness/slapd.ts: memberof overlay, the service account
 * cn=reader,dc=example,dc=org of examples/ldap-service-account.yaml) plus
 * the people and groups of deploy/ldap/bootstrap.ldif, which docker compose's
 * OpenLDAP loads. Without slapd, an address nothing listens on: the LDAP
 * hosts then answer 503 (directory unreachable), and `hint` says what to install.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { startSlapd, type Slapd } from '../harness/slapd.js';

export const INSTALL_HINT =
  'install slapd to get them: sudo apt-get install -y slapd ldap-utils (Debian, Ubuntu), then run it again';

export interface ExampleDirectory {
  /** ldap://127.0.0.1:PORT */
  address: string;
  running: boolean;
  /** Why it is not running and what to do. */
  hint?: string;
  close(): Promise<void>;
}

/** The entries of an LDIF file (plain `attr: value` lines, `attr:: base64`, continuation lines, comments). */
export function parseLdif(text: string): Record<string, string[]>[] {
  const unfolded = text.replace(/\r?\n /g, '');
  return unfolded
    .split(/\n\s*\n/)
    .map((block) => {
      const entry: Record<string, string[]> = {};
      for (const line of block.split('\n')) {
        if (!line.trim() || line.startsWith('#')) continue;
        const m = /^([^:]+)(::?)\s?(.*)$/.exec(line);
        if (!m) continue;
        const value = m[2] === '::' ? Buffer.from(m[3]!, 'base64').toString('utf8') : m[3]!;
        (entry[m[1]!] ??= []).push(value);
      }
      return entry;
    })
    .filter((e) => e.dn);
}

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts the example directory on `port` (default: a free one). */
export async function startExampleDirectory(root: string, port?: number): Promise<ExampleDirectory> {
  let slapd: Slapd;
  try {
    slapd = await startSlapd({ statsLog: false, port });
  } catch (err) {
    const missing = /not found/.test((err as Error).message);
    return {
      address: `ldap://127.0.0.1:${port ?? (await closedPort())}`,
      running: false,
      hint: missing ? INSTALL_HINT : `slapd did not start: ${(err as Error).message}`,
      close: async () => undefined,
    };
  }
  // One entry at a time: the base layout (ou=people, ou=groups, ...) is already there.
  for (const entry of parseLdif(readFileSync(path.join(root, 'deploy/ldap/bootstrap.ldif'), 'utf8'))) {
    const { dn, ...attributes } = entry;
    await slapd.add([{ dn: dn![0]!, ...attributes }]).catch((err: Error) => {
      if (!/Already exists/.test(err.message)) throw err;
    });
  }
  return { address: slapd.url, running: true, close: () => slapd.close() };
}
