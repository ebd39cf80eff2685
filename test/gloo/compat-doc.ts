/**
 * docs/gloo-compatibility.md, rendered from the table validate reports from
 * (compiler/validate/gloo-fields.ts), so the page and the errors never disagree.
 */
import { GLOO_KINDS, type FieldEntry, type FieldTable } from '../../compiler/validate/gloo-fields.js';

const STATUS: Record<FieldEntry['support'], string> = { supported: 'supported', different: 'supported, differs', refused: 'refused' };

const INTRO = `# Gloo compatibility

Sluice reads Gloo Edge's routing resources as Gloo writes them. This page
lists every field of those resources and what Sluice does with it:
**supported** (as Gloo documents it), **supported, differs** (accepted, with
the difference stated), or **refused** (an error that names the field, says
why, and what to use instead). No field is accepted and then ignored, except
the metadata, status and discovery labels listed below, which have no
routing meaning.

The page is generated from the table the compiler reports from
(\`compiler/validate/gloo-fields.ts\`); a test fails when they differ
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
  accepted and ignored. Its \`kube.selector\` must be the Service's own:
  Sluice reaches a Service by its DNS name and does not discover pods, so a
  narrower selector (one Upstream per version) is an error, never widened.
- When a resource uses a field Sluice refuses, the errors name those fields
  first; schema errors of that resource (a missing field, a typo) are shown
  once nothing refused is left, so a hint never asks for the wrong thing.
`;

export function renderCompatibility(): string {
  const parts = [INTRO];
  for (const [kind, k] of Object.entries(GLOO_KINDS)) {
    parts.push(`## ${kind}\n\n\`${k.glooApiVersion}\` (alias of \`${k.apiVersion}\`)\n`);
    if (k.refused) {
      parts.push(`Refused as a whole: ${k.refused.reason}.${k.refused.instead ? ` Instead: ${k.refused.instead}.` : ''}\n`);
      continue;
    }
    const rows = fieldRows(k.spec, 'spec');
    parts.push(['| Field | Status | Notes |', '| --- | --- | --- |', ...rows].join('\n') + '\n');
  }
  return parts.join('\n');
}

function fieldRows(table: FieldTable, prefix: string): string[] {
  return Object.entries(table).flatMap(([name, entry]) => {
    const path = `${prefix}.${name}`;
    const notes = [entry.note, entry.instead ? `Instead: ${entry.instead}.` : undefined].filter(Boolean).join('. ').replace(/\.\./g, '.');
    const row = `| \`${path}\` | ${STATUS[entry.support]} | ${escapeCell(notes)} |`;
    if (!entry.fields) return [row];
    const inner = entry.shape === 'list' ? `${path}[]` : entry.shape === 'map' ? `${path}.<name>` : path;
    return [row, ...fieldRows(entry.fields, inner)];
  });
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
