/**
 * The GraphQL explorer in a real browser: Debian's Chromium (harness/chromium.ts)
 * loads GraphiQL from a running sluice-graphql with real upstreams on
 * 127.0.0.1 (test/graphql/explorer-fixture.ts). The browser sends the API
 * header on every request, as Envoy's route sets it. A query is typed and
 * run and its answer read from the page; completion and the docs come from
 * introspection; variables and headers reach the upstream; a remote API
 * (no introspection) says so; a stitched API shows its stitched schema.
 * Screenshots go to test-artifacts/.
 */
import { launchChromium, screenshot, skipWithoutChromium, type Browser, type Page } from '../../harness/chromium.js';
import { API_HEADER, startExplorerFixture, type ExplorerFixture } from './explorer-fixture.js';

(skipWithoutChromium('test/graphql/explorer-browser.test.ts') ? describe.skip : describe)(
  'GraphiQL from sluice-graphql in headless Chromium',
  () => {
    let fx: ExplorerFixture;
    let browser: Browser;
    /** What the page reported that should never happen: script errors, CSP refusals, failed loads. */
    let problems: string[];

    beforeAll(async () => {
      fx = await startExplorerFixture();
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await fx?.close();
    });

    /** A page on the API's path, the API header set on every request as Envoy's route sets it. */
    async function open(api: string): Promise<Page> {
      const context = await browser.newContext({
        extraHTTPHeaders: { [API_HEADER]: api },
        viewport: { width: 1280, height: 720 },
      });
      const page = await context.newPage();
      problems = [];
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`${r.status()}: ${r.request().method()} ${r.url()}`);
      });
      await page.goto(fx.url);
      await page.waitForSelector('.graphiql-container');
      return page;
    }

    /** The variables or headers editor, whichever tab is open. */
    const TOOL_EDITOR = 'section.graphiql-editor-tool .graphiql-editor:not(.hidden)';

    /** Types into a CodeMirror editor as a person does: click, select all, type. */
    async function typeInto(page: Page, editor: string, text: string): Promise<void> {
      await page.click(`${editor} .CodeMirror`);
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.type(text);
      // Completion popups close so that the next key is not theirs.
      await page.keyboard.press('Escape');
    }

    const editorText = (page: Page, editor: string) =>
      page.$eval(`${editor} .CodeMirror`, (el) =>
        (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue(),
      );

    async function run(page: Page): Promise<unknown> {
      await page.click('.graphiql-execute-button');
      await page.waitForFunction(() => {
        const cm = document.querySelector('.graphiql-response .CodeMirror') as unknown as {
          CodeMirror?: { getValue(): string };
        };
        return (cm?.CodeMirror?.getValue() ?? '').trim().startsWith('{');
      });
      return JSON.parse(await editorText(page, '.graphiql-response'));
    }

    test('loads, completes from introspection, runs a typed query and shows the answer', async () => {
      const page = await open('default.users');
      // Completion: the schema came by introspection.
      await page.click('.graphiql-query-editor .CodeMirror');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('{ us');
      await page.waitForSelector('.CodeMirror-hints');
      expect(await page.$$eval('.CodeMirror-hint', (hints) => hints.map((h) => h.textContent))).toContain('user');
      await page.keyboard.press('Escape');

      await typeInto(page, '.graphiql-query-editor', '{ user(id: 1) { name email } }');
      expect((await editorText(page, '.graphiql-query-editor')).replace(/\s+/g, ' ')).toBe(
        '{ user(id: 1) { name email } }',
      );
      expect(await run(page)).toEqual({ data: { user: { name: 'Ada', email: 'ada@example.org' } } });

      // The docs: the Query type and its field from the schema.
      await page.click('[aria-label="Show Documentation Explorer"]');
      await page.click('.graphiql-doc-explorer-type-name >> text=Query');
      await page.waitForSelector('.graphiql-doc-explorer-field-name >> text=user');
      // docs/images/graphql-explorer.png is this screenshot.
      await screenshot(page, 'graphql-explorer');
      expect(problems).toEqual([]);
    });

    test('variables typed in the variables editor are sent with the query', async () => {
      const page = await open('default.users');
      await typeInto(page, '.graphiql-query-editor', 'query ($id: ID!) { user(id: $id) { name } }');
      await page.click('.graphiql-editor-tools button:has-text("Variables")');
      await typeInto(page, TOOL_EDITOR, '{"id": "2"}');
      expect(await run(page)).toEqual({ data: { user: { name: 'Grace' } } });
      expect(problems).toEqual([]);
    });

    test("with introspection off the explorer says so; queries run, the headers editor's headers reaching the upstream", async () => {
      const page = await open('default.greeter');
      const notice = await page.textContent('.sluice-explorer-notice');
      expect(notice).toContain('Introspection is off for this API, so the explorer has no schema');
      await page.click('.graphiql-editor-tools button:has-text("Headers")');
      await typeInto(page, TOOL_EDITOR, '{"x-explorer-note": "from the headers editor"}');
      await typeInto(page, '.graphiql-query-editor', '{ greeting(name: "explorer") }');
      fx.upstream.reset();
      expect(await run(page)).toEqual({ data: { greeting: 'hello explorer' } });
      expect(fx.upstream.requests.map((r) => r.headers['x-explorer-note'])).toEqual(['from the headers editor']);
      // No introspection query was sent and refused: the page asked for no schema.
      expect(problems).toEqual([]);
      await screenshot(page, 'graphql-explorer-no-introspection');
    });

    test("a stitched API's docs show the stitched schema: both subschemas' fields", async () => {
      const page = await open('default.shop');
      await page.click('[aria-label="Show Documentation Explorer"]');
      await page.click('.graphiql-doc-explorer-type-name >> text=Query');
      await page.waitForSelector('.graphiql-doc-explorer-field-name >> text=user');
      const fields = await page.$$eval('.graphiql-doc-explorer-field-name', (els) => els.map((e) => e.textContent));
      expect(fields).toEqual(expect.arrayContaining(['user', 'greeting']));
      expect(problems).toEqual([]);
    });
  },
);
