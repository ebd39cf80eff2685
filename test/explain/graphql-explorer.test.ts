/**
 * explain on the GraphQL explorer (golden/graphql-explorer): a browser's GET
 * on an API with the explorer gets GraphiQL's page from sluice-graphql, its
 * assets too; on an API without it, and for GraphQL requests, the answer is
 * sluice-graphql's GraphQL one (the upstream, as explain shows it).
 */
import { fromCompileResult, type GatewayConfig } from '../../compiler/explain/config.js';
import { explain } from '../../compiler/explain/explain.js';
import { compileFiles } from '../../compiler/pipeline.js';
import { DEFAULT_OPTIONS } from '../../compiler/translate/output.js';

let config: GatewayConfig;

beforeAll(async () => {
  config = fromCompileResult(await compileFiles(['golden/graphql-explorer/input'], DEFAULT_OPTIONS))!;
});

const BROWSER: [string, string][] = [['accept', 'text/html,application/xhtml+xml,*/*;q=0.8']];

async function run(url: string, headers: [string, string][] = BROWSER, method = 'GET') {
  const e = await explain(config, { method, url, headers });
  return { details: e.steps.find((s) => s.stage === 'destination')!.details, answer: e.answer };
}

test("a browser's GET on the API's path is answered by sluice-graphql with the explorer page", async () => {
  const { details, answer } = await run('http://users.example.com/graphql');
  expect(details).toContain(
    "a browser's GET (Accept names text/html, no query parameter): sluice-graphql answers with the GraphQL explorer (GraphiQL) of default.users, its assets and queries on this same path",
  );
  expect(answer).toMatchObject({
    status: 200,
    by: 'sluice-graphql',
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
});

test('the assets are served on the same path; an unknown one is 404', async () => {
  expect((await run('http://users.example.com/graphql?explorer-asset=graphiql.js')).answer).toMatchObject({
    status: 200,
    by: 'sluice-graphql',
  });
  const unknown = await run('http://users.example.com/graphql?explorer-asset=x.js');
  expect(unknown.answer).toMatchObject({ status: 404, body: 'no explorer asset named x.js' });
});

test('GraphQL requests, and a browser on an API without the explorer, go on to sluice-graphql as GraphQL', async () => {
  const post = await run('http://users.example.com/graphql', [['content-type', 'application/json']], 'POST');
  expect(post.answer).toMatchObject({ status: 'upstream', by: 'graphql' });
  const query = await run('http://users.example.com/graphql?query=%7Buser(id%3A1)%7Bname%7D%7D');
  expect(query.answer).toMatchObject({ status: 'upstream', by: 'graphql' });
  const hidden = await run('http://users.example.com/internal/graphql');
  expect(hidden.answer).toMatchObject({ status: 'upstream', by: 'graphql' });
  expect(hidden.details).toContain(
    "a browser's GET for the explorer, which default.users-internal does not enable (options.explorer.enabled): sluice-graphql answers it as GraphQL over HTTP (400 without a query)",
  );
});
