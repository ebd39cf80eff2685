/**
 * Test certificates made by the openssl CLI in a directory of the test's:
 * P-256 keys, valid two days, PEM on disk (for servers that read files, as
 * slapd does) and in memory (for Secrets).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCertificate {
  crt: string;
  key: string;
  crtPath: string;
  keyPath: string;
}

/** `DNS:name` for a host name, `IP:address` for an IPv4 or IPv6 address. */
function subjectAltName(host: string): string {
  return /^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`;
}

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  } catch (err) {
    throw new Error(`openssl could not make a test certificate (install openssl): ${(err as Error).message}`);
  }
}

const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

function read(dir: string, name: string): TestCertificate {
  const crtPath = path.join(dir, `${name}.crt`);
  const keyPath = path.join(dir, `${name}.key`);
  return { crt: readFileSync(crtPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), crtPath, keyPath };
}

/** A self-signed certificate for `host`, written to `dir`/`name`.crt and .key. */
export function selfSignedCertificate(dir: string, name: string, host: string): TestCertificate {
  openssl(dir, [
    'req',
    '-x509',
    ...newKey,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${host}`,
    '-addext',
    `subjectAltName=${subjectAltName(host)}`,
  ]);
  return read(dir, name);
}

export interface TestCa {
  ca: TestCertificate;
  /** A certificate for `host` signed by the CA, written to `dir`/`name`.crt and .key. */
  issue(name: string, host: string): TestCertificate;
}

/** A certificate authority in `dir` that signs leaf certificates. */
export function testCa(dir: string): TestCa {
  openssl(dir, [
    'req',
    '-x509',
    ...newKey,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=test CA',
  ]);
  return {
    ca: read(dir, 'ca'),
    issue(name, host) {
      openssl(dir, ['req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${host}`]);
      writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${subjectAltName(host)}\n`);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ]);
      return read(dir, name);
    },
  };
}
