/**
 * What sluice-extauth is sent, for the tests and the benchmark: a Check
 * request shaped like Envoy's, HTTP Basic credentials, and a --config file.
 */
import { writeFile } from 'node:fs/promises';
import { tempDir } from './temp-dir.js';
import path from 'node:path';

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** What Envoy adds to a CheckRequest when configured to: other filters' dynamic metadata (as google.protobuf.Struct), the buffered body. */
export interface CheckExtras {
  filterMetadata?: Record<string, unknown>;
  body?: string;
  /** The request's host (default api.example.org). */
  host?: string;
}

/** A CheckRequest shaped like Envoy's (envoy/extensions/filters/common/ext_authz/check_request_utils.cc). */
export function envoyCheckRequest(
  configRef: string | undefined,
  headers: Record<string, string>,
  extra: CheckExtras = {},
): unknown {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const path = lower[':path'] ?? '/pets';
  return {
    attributes: {
      source: { address: { socket_address: { address: '127.0.0.1', port_value: 51234 } } },
      destination: { address: { socket_address: { address: '127.0.0.1', port_value: 8080 } } },
      request: {
        time: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
        http: {
          id: '1234567890',
          method: 'GET',
          headers: {
            ':authority': extra.host ?? 'api.example.org',
            ':method': 'GET',
            ':path': path,
            ':scheme': 'http',
            'x-request-id': 'abc',
            ...lower,
          },
          path,
          host: extra.host ?? 'api.example.org',
          scheme: 'http',
          protocol: 'HTTP/1.1',
          ...(extra.body !== undefined ? { body: extra.body } : {}),
        },
      },
      context_extensions: configRef === undefined ? {} : { config_ref: configRef },
      // What the ext_authz filter forwards of other filters' dynamic metadata (metadata_context_namespaces), as google.protobuf.Struct.
      metadata_context: { filter_metadata: extra.filterMetadata ?? {} },
    },
  };
}

/** Writes an extauth.json of `resources` into `dir` (default: a temporary directory removed after the test file). */
export async function writeConfig(resources: unknown[], dir = tempDir('extauth')): Promise<string> {
  const file = path.join(dir, 'extauth.json');
  await writeFile(file, JSON.stringify({ resources }, null, 2));
  return file;
}
