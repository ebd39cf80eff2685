/**
 * docs/gloo-compatibility.md, rendered from the kind definitions validate
 * reports from (compiler/kinds/), so the page and the errors never disagree.
 */
import { glooFields, type Support } from '../../compiler/kinds/gloo.js';
import { KINDS, REFUSED_KINDS } from '../../compiler/kinds/index.js';
import { renderCorpus } from './auth-config-corpus.js';
import { renderRoutingCorpus } from './routing-corpus.js';

const STATUS: Record<Support, string> = { supported: 'supported', different: 'supported, differs', refused: 'refused' };

const INTRO = `# Gloo compatibility

Sluice reads Gloo Edge's routing resources as Gloo writes them. This page
lists every field of those resources and what Sluice does with it:
**supported** (as Gloo documents it), **supported, differs** (accepted, with
the difference stated), or **refused** (an error that names the field, says
why, and what to use instead). No field is accepted and then ignored, except
the metadata, status and discovery labels listed below, which have no
routing meaning.

The page is generated from the kind definitions the compiler validates
with and reports from (\`compiler/kinds/\`); a test fails when they differ
(\`UPDATE_GLOO_DOC=1 npm test -- test/gloo\` rewrites it).

## Reading Gloo's files as they are

- Gloo's API groups are aliases of Sluice's, with identical output:
  \`gateway.solo.io/v1\` = \`gateway.gateway.example/v1\`,
  \`gloo.solo.io/v1\` = \`gloo.gateway.example/v1\`,
  \`enterprise.gloo.solo.io/v1\` = \`enterprise.gateway.example/v1\`,
  \`graphql.gloo.solo.io/v1beta1\` = \`graphql.gateway.example/v1beta1\`.
- Files as \`kubectl get -o yaml\` writes them load: \`metadata.labels\` and
  \`annotations\` left empty (null), \`creationTimestamp\`, \`resourceVersion\`,
  \`uid\`, \`generation\`, \`generateName\`, \`selfLink\`, \`managedFields\`,
  \`ownerReferences\`, \`finalizers\`, \`deletionTimestamp\` and a \`status\`
  block are accepted and ignored. A \`kind: List\` (\`apiVersion: v1\`, several
  resources in \`items\`) loads as its items; errors point at the item's lines.
- An Upstream's \`discoveryMetadata\` (labels Gloo's discovery adds) is
  accepted and ignored. Its \`kube.selector\` and \`kube.subsetSpec\` choose
  among the Service's pods when the Service's EndpointSlices (and its Pods)
  are among the inputs, as \`kubectl get -o yaml\` exports them
  (docs/kubernetes.md); without them Sluice reaches the Service by its DNS
  name, so a selector other than the Service's own (one Upstream per
  version) and subsets are errors, never widened.
- Discovered Upstreams (one per Service port, \`<namespace>-<service>-<port>\`)
  live in the namespace given by \`--namespace\` (\`sluice-system\`), Gloo's
  \`discoveryNamespace\`. A reference into \`gloo-system\`, Gloo's default, that
  names no Upstream there is looked up in that namespace, so Gloo's files
  find their discovered Upstreams unchanged. A Gloo installation that set
  another \`discoveryNamespace\` runs Sluice with \`--namespace\` set to it.
- A Gloo kind's spec is read as Gloo reads proto3 JSON: a field's original
  snake_case name (\`route_action\`, \`api_key_auth\`) beside its lowerCamelCase
  one, an integer (a 64-bit one above all, \`minimumRingSize: "1024"\`) or a
  number as a string, and a Duration in Go's forms (\`1m30s\`, \`250ms\`,
  \`1h\`) beside proto3's (\`90s\`, \`.5s\`), and an enum as its number
  (\`responseCode: 1\` is \`FOUND\`; a number the enum lacks is an error
  listing the names). Errors name the field as the file writes it; one field
  written in both spellings is an error. Sluice's own CRDs (\`sluice crds\`)
  take the canonical spelling only, as \`kubectl get\` writes it, except
  enums, which take the name or the number as Gloo's CRDs do.
- When a resource uses a field Sluice refuses, the errors name those fields
  first; schema errors of that resource (a missing field, a typo) are shown
  once nothing refused is left, so a hint never asks for the wrong thing.
`;

const heading = (k: { kind: string; apiVersion: string; glooApiVersion?: string }) =>
  `## ${k.kind}\n\n\`${k.glooApiVersion}\` (alias of \`${k.apiVersion}\`)\n`;

export function renderCompatibility(): string {
  const parts = [INTRO];
  for (const k of KINDS) {
    if (!k.glooApiVersion || !k.spec) continue;
    parts.push(
      heading(k),
      ['| Field | Status | Notes |', '| --- | --- | --- |', ...fieldRows(k.spec, 'spec')].join('\n') + '\n',
    );
  }
  for (const k of REFUSED_KINDS) {
    parts.push(
      heading(k),
      `Refused as a whole: ${k.refused.reason}.${k.refused.instead ? ` Instead: ${k.refused.instead}.` : ''}\n`,
    );
  }
  parts.push(renderRoutingCorpus(), renderCorpus());
  return parts.join('\n');
}

function fieldRows(message: object, prefix: string): string[] {
  return [...glooFields(message).values()].flatMap(({ name, gloo, message: inner, shape }) => {
    const path = `${prefix}.${name}`;
    const notes = [gloo.note, gloo.instead ? `Instead: ${gloo.instead}.` : undefined]
      .filter(Boolean)
      .join('. ')
      .replace(/\.\./g, '.');
    const row = `| \`${path}\` | ${STATUS[gloo.support]} | ${escapeCell(notes)} |`;
    if (!inner) return [row];
    return [row, ...fieldRows(inner, shape === 'list' ? `${path}[]` : shape === 'map' ? `${path}.<name>` : path)];
  });
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
