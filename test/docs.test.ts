/** README.md's "Documentation" section lists every page of docs/, each with a line on what it holds. */
import { readdirSync, readFileSync } from 'node:fs';

test('every docs/*.md is listed in the README, with what it holds', () => {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(
    readme.indexOf('\n## Documentation\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## Documentation\n') + 1),
  );
  // A list item names one or more pages, then a colon and what they hold.
  const listed = [...section.matchAll(/^- ((?:`docs\/[\w-]+\.md`(?:, | and )?)+): \S/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/`(docs\/[\w-]+\.md)`/g)].map((n) => n[1]),
  );
  const pages = readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  expect(pages.filter((p) => !listed.includes(p))).toEqual([]);
});
