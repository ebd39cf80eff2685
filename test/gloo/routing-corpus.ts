/**
 * Gloo's own documented routing examples (fixtures/gloo-docs-routing.yaml):
 * Gateways, VirtualServices, RouteTables, Upstreams and the rest, each
 * validated as its page writes it. Validation is what an example can be held
 * to alone: the resources its routes name live on other pages or in the
 * reader's cluster, so resolving them would fail for reasons of the page.
 * What validation says of each is listed in docs/gloo-compatibility.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../../compiler/diagnostics.js';
import { parseText } from '../../compiler/load/load.js';
import { validateDocuments } from '../../compiler/validate/validate.js';

export const ROUTING_CORPUS_FILE = path.join(import.meta.dirname, 'fixtures', 'gloo-docs-routing.yaml');

/**
 * Examples that are not valid as Gloo reads them either, and why: each is
 * an error in Sluice too (the test checks it), for the reason given here.
 */
const NO_GATEWAY_TYPE =
  "a Gateway with none of httpGateway, tcpGateway, hybridGateway: Gloo's translator refuses it too (the page leaves out httpGateway)";
const NBSP = 'indented with non-breaking spaces (U+00A0), which YAML reads as part of the keys';
const BEFORE_1_0 = "Gloo's API before 1.0 (virtualHostPlugins, routePlugins, matcher), shown as history";
export const NOT_VALID_AS_WRITTEN: Record<string, string> = {
  'guides/security/access_logging 8': NO_GATEWAY_TYPE,
  'guides/security/access_logging 9': NO_GATEWAY_TYPE,
  'guides/security/access_logging 10': NBSP,
  'guides/security/access_logging 11': NBSP,
  'guides/security/auth/extauth/configuration_format_history 1': BEFORE_1_0,
  'guides/security/auth/extauth/configuration_format_history 2': BEFORE_1_0,
  'guides/security/auth/extauth/configuration_format_history 3': BEFORE_1_0,
  'guides/security/auth/extauth/configuration_format_history 4': BEFORE_1_0,
  'guides/security/auth/jwt/access_control/access_control_examples 3':
    "a claim written as the YAML boolean true where Gloo's claims map holds strings, which Gloo's proto JSON refuses too",
  'guides/security/cors 1': '"(...)" in place of the cors settings',
  'guides/security/cors 2': "the virtual host's domains and routes written under spec, beside an empty virtualHost",
  'guides/security/data_loss_prevention 5': NO_GATEWAY_TYPE,
  'guides/traffic_management/destination_types/delegation 8':
    '`operator: !` is a YAML tag with no value, so the operator is empty (DoesNotExist is the name of what the comment asks for)',
  'guides/traffic_management/destination_types/discovered_upstream/discovered-upstream-configuration 1':
    'an initialStreamWindowSize of 2048, below the 65535 Envoy takes (Envoy would refuse the cluster)',
  'guides/traffic_management/request_processing/append_remove_headers 4':
    "options on a RouteTable, which Gloo's RouteTable does not have",
  'guides/traffic_management/request_processing/append_remove_headers 5':
    "options on a RouteTable, which Gloo's RouteTable does not have",
  'guides/traffic_management/request_processing/https_redirect 1':
    'a route whose matchers and action are left for the reader ("put the https routes here")',
  'introduction/faq 4': `${NO_GATEWAY_TYPE}, and virtualServices from Gloo's API before 1.0`,
  'operations/advanced/zero-downtime-gateway-rollout 1': '"..." in place of the domains, matchers and action',
  'reference/api/github.com/solo-io/gloo/projects/gateway/api/v1/external_options.proto.sk 4':
    'a route with options and no action, which Gloo reports too: the reference shows only where the options go',
};

export type Verdict =
  | { status: 'accepted' }
  /** A field Sluice refuses: the first one, and the reason it gives. */
  | { status: 'refused'; field: string; why: string }
  /** An error of the example itself (NOT_VALID_AS_WRITTEN says why); the first error. */
  | { status: 'not valid'; error: string };

/** The examples as written: id -> the documents' text. */
export function routingExamples(): [string, string][] {
  return readFileSync(ROUTING_CORPUS_FILE, 'utf8')
    .split(/^---\n(?=# example: )/m)
    .slice(1)
    .map((text) => [/^# example: (.+)$/m.exec(text)![1]!, text]);
}

/** A refused field's error, or a refused kind's. */
const REFUSED = /^(?:"([^"]+)"|kind (\S+)) is not supported: (.*)$/;

/** What load and validate say of one example's text. */
export function verdictOf(text: string): { verdict: Verdict; diagnostics: Diagnostic[] } {
  const loaded = parseText('example.yaml', text);
  const { diagnostics } = validateDocuments(loaded.documents);
  const all = [...loaded.diagnostics, ...diagnostics].filter((d) => d.severity !== 'warning');
  const refused = all.map((d) => REFUSED.exec(d.message)).find((m) => m !== null);
  const verdict: Verdict = refused
    ? { status: 'refused', field: refused[1] ?? refused[2]!, why: refused[3]! }
    : all.length > 0
      ? { status: 'not valid', error: `${all[0]!.field ?? all[0]!.resource ?? ''}: ${all[0]!.message}` }
      : { status: 'accepted' };
  return { verdict, diagnostics: all };
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The section of docs/gloo-compatibility.md. */
export function renderRoutingCorpus(): string {
  const verdicts = routingExamples().map(([id, text]) => [id, verdictOf(text).verdict] as const);
  const count = (status: Verdict['status']) => verdicts.filter(([, v]) => v.status === status).length;
  const rows = verdicts.map(([id, v]) => {
    const notes =
      v.status === 'accepted'
        ? ''
        : v.status === 'refused'
          ? `\`${v.field}\`: ${v.why}`
          : `${NOT_VALID_AS_WRITTEN[id]} (${v.error})`;
    return `| ${id} | ${v.status} | ${escapeCell(notes)} |`;
  });
  return `## Gloo's documented routing examples

Every Gateway, VirtualService, RouteTable, Upstream, UpstreamGroup, options
resource, RateLimitConfig and Settings the Gloo Edge documentation shows
(the page's path under \`docs/content\`, then the example's position on it),
validated by \`test/gloo/routing-corpus.test.ts\` as the page writes it:
every field is one Sluice accepts, or the first one it refuses is named
with the reason. The resources an example's routes name are on other pages
or in the reader's cluster, so an example is held to validation only.
${count('accepted')} of ${verdicts.length} are accepted as written, ${count('refused')} are refused with the reason,
and ${count('not valid')} are not valid as Gloo reads them either (the reason is given).

| Example | Status | Notes |
| --- | --- | --- |
${rows.join('\n')}
`;
}
