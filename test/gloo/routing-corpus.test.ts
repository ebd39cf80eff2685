/**
 * Gloo's own documented routing examples, each validated as its page writes
 * it (./routing-corpus.ts). An example Sluice neither accepts nor refuses by
 * name must be one that is not valid for Gloo either, with the reason
 * written down: a change that starts rejecting a good example fails here
 * (and docs/gloo-compatibility.md, which lists every verdict, changes).
 */
import { KINDS } from '../../compiler/kinds/index.js';
import { parseText } from '../../compiler/load/load.js';
import { NOT_VALID_AS_WRITTEN, routingExamples, verdictOf } from './routing-corpus.js';

const examples = routingExamples();
const GLOO_API = /\.solo\.io\//;

test('every example holds Gloo resources only, each named, and ids are unique', () => {
  expect(examples.length).toBeGreaterThan(200);
  expect(new Set(examples.map(([id]) => id)).size).toBe(examples.length);
  for (const [id, text] of examples) {
    const { documents } = parseText(`${id}.yaml`, text);
    expect(documents.length).toBeGreaterThan(0);
    for (const d of documents) {
      expect(d.value.apiVersion).toMatch(GLOO_API);
      expect((d.value.metadata as { name?: string } | undefined)?.name).toBeTruthy();
    }
  }
});

test.each(examples)('%s', (id, text) => {
  const { verdict } = verdictOf(text);
  if (verdict.status === 'not valid') expect(NOT_VALID_AS_WRITTEN[id]).toBeDefined();
  else expect(NOT_VALID_AS_WRITTEN[id]).toBeUndefined();
  if (verdict.status === 'refused') expect(verdict.why.length).toBeGreaterThan(10);
});

test('the accepted examples cover every routing kind Sluice reads from Gloo', () => {
  const accepted = new Set(
    examples
      .filter(([, text]) => verdictOf(text).verdict.status === 'accepted')
      .flatMap(([id, text]) => parseText(`${id}.yaml`, text).documents.map((d) => String(d.value.kind))),
  );
  const routingKinds = ['Gateway', 'VirtualService', 'RouteTable', 'Upstream', 'UpstreamGroup'];
  expect(routingKinds.filter((kind) => KINDS.some((k) => k.kind === kind && k.glooApiVersion))).toEqual(routingKinds);
  expect([...accepted]).toEqual(expect.arrayContaining(routingKinds));
});
