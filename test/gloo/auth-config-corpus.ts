/**
 * Gloo's own documented AuthConfig examples (fixtures/gloo-docs-authconfigs.yaml)
 * and what Sluice does with each, as docs/gloo-compatibility.md lists them;
 * ./auth-config-corpus.test.ts compiles each and holds it to its status.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const CORPUS_FILE = path.join(import.meta.dirname, 'fixtures', 'gloo-docs-authconfigs.yaml');
export const CORPUS_SECRETS = path.join(import.meta.dirname, 'fixtures', 'gloo-docs-auth-secrets.yaml');

export type CorpusStatus =
  | { status: 'supported' }
  /** Refused: the field an error names, the reason in short. */
  | { status: 'refused'; field: string; why: string }
  /** Not valid as written: the guide leaves a placeholder where a value goes; the error names the field. */
  | { status: 'placeholder'; field: string; why: string };

/** Each example, by `<guide> <n>` (its position on the guide's page), in the file's order. */
export const CORPUS: Record<string, CorpusStatus> = {
  'security/auth/extauth 1': { status: 'supported' },
  'security/auth/extauth/apikey_auth 1': { status: 'supported' },
  'security/auth/extauth/basic_auth 1': { status: 'supported' },
  'security/auth/extauth/basic_auth 2': { status: 'supported' },
  'security/auth/extauth/basic_auth 3': { status: 'supported' },
  'security/auth/extauth/configuration_format_history 1': { status: 'supported' },
  'security/auth/extauth/ldap 1': { status: 'supported' },
  'security/auth/extauth/ldap 2': { status: 'supported' },
  'security/auth/extauth/oauth 1': {
    status: 'placeholder',
    field: 'issuerUrl',
    why: 'the guide writes theissuer.com, no URL, for the reader to replace',
  },
  'security/auth/extauth/oauth 2': { status: 'supported' },
  'security/auth/extauth/oauth 3': { status: 'supported' },
  'security/auth/extauth/oauth 4': {
    status: 'refused',
    field: 'frontChannelLogout',
    why: 'front-channel logout is not built; logoutPath ends sessions',
  },
  'security/auth/extauth/oauth 5': { status: 'supported' },
  'security/auth/extauth/oauth 7': { status: 'supported' },
  'security/auth/extauth/oauth 8': { status: 'supported' },
  'security/auth/extauth/oauth/access_token 1': { status: 'supported' },
  'security/auth/extauth/oauth/access_token 2': {
    status: 'refused',
    field: 'dynamicMetadataFromClaims',
    why: 'no dynamic metadata in the check answer; claimsToHeaders instead',
  },
  'security/auth/extauth/oauth/auth0 1': {
    status: 'placeholder',
    field: 'issuerUrl',
    why: 'the guide writes <insert-your-app-url-here> for the reader to replace',
  },
  'security/auth/extauth/oauth/auth0 2': { status: 'supported' },
  'security/auth/extauth/oauth/auth0 3': { status: 'supported' },
  'security/auth/extauth/oauth/auth0 4': { status: 'supported' },
  'security/auth/extauth/oauth/dex 1': { status: 'supported' },
  'security/auth/extauth/oauth/google 1': { status: 'supported' },
  'security/auth/extauth/oauth/okta 1': { status: 'supported' },
  'security/auth/extauth/oauth/okta 2': { status: 'supported' },
  'security/auth/extauth/oauth/okta 3': { status: 'supported' },
  'security/auth/extauth/oauth/okta 4': { status: 'supported' },
  'security/auth/extauth/opa 1': { status: 'refused', field: 'opaAuth', why: 'no Rego engine; opaServerAuth instead' },
  'security/auth/extauth/opa 2': { status: 'refused', field: 'opaAuth', why: 'no Rego engine; opaServerAuth instead' },
  'security/auth/extauth/passthrough_auth/grpc 1': { status: 'supported' },
  'security/auth/extauth/passthrough_auth/grpc 2': {
    status: 'refused',
    field: 'retryPolicy',
    why: 'calls are not retried',
  },
  'security/auth/extauth/passthrough_auth/http 1': { status: 'supported' },
  'security/auth/extauth/passthrough_auth/http 2': { status: 'supported' },
  'security/rate_limiting/envoy 1': {
    status: 'refused',
    field: 'opaAuth',
    why: 'no Rego engine; opaServerAuth instead',
  },
};

/** Examples of the guides that are not manifests as written, left out of the file. */
export const NOT_MANIFESTS: Record<string, string> = {
  'security/auth/extauth/oauth 6': 'a fragment (no metadata), showing where session.cipherConfig goes',
  'security/auth/extauth/passthrough_auth/grpc 3':
    'its indentation puts metadata and spec under kind, which YAML cannot read',
  'security/auth/extauth/passthrough_auth/http 3':
    'a schematic: field types (string[], map<string, string>) in place of values',
};

/** The examples as written: id -> the document's text. */
export function corpusExamples(): [string, string][] {
  return readFileSync(CORPUS_FILE, 'utf8')
    .split(/^---$/m)
    .slice(1)
    .map((doc) => {
      const id = /^# example: (.+)$/m.exec(doc)![1]!;
      return [id, doc];
    });
}

const LABEL = { supported: 'supported', refused: 'refused', placeholder: 'a placeholder to fill in' } as const;

const count = (status: CorpusStatus['status']) => Object.values(CORPUS).filter((s) => s.status === status).length;

/** The section of docs/gloo-compatibility.md. */
export function renderCorpus(): string {
  const rows = Object.entries(CORPUS).map(([id, s]) => {
    const notes = s.status === 'supported' ? '' : `\`${s.field}\`: ${s.why}`;
    return `| ${id} | ${LABEL[s.status]} | ${notes} |`;
  });
  const skipped = Object.entries(NOT_MANIFESTS).map(([id, why]) => `| ${id} | not a manifest | ${why} |`);
  return `## Gloo's documented AuthConfig examples

Every AuthConfig the Gloo Edge guides show (the guide's path under
\`guides/\`, then the example's position on its page), compiled by
\`test/gloo/auth-config-corpus.test.ts\` with the Secrets the guides create.
${count('supported')} of ${Object.keys(CORPUS).length} compile as written, ${count('refused')} are refused with the
reason, and ${count('placeholder')} hold a placeholder the guide asks the reader to fill in (the
error names that field).

| Example | Status | Notes |
| --- | --- | --- |
${[...rows, ...skipped].join('\n')}
`;
}
