/**
 * serve's status page in a real browser (Debian's Chromium, headless):
 * against a running serve with real ADS clients, one NACKing, and a real
 * sluice-extauth. The NACK and Envoy's text show, as text; an edited file's
 * new version appears without a reload; markup in user input (a node id, a
 * NACK text, a resource name) stays text and runs nothing. The screenshot
 * goes to test-artifacts/status-page.png (and to docs/images/ with
 * UPDATE_SCREENSHOTS=1).
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { TYPE_URL } from '../../contract/names.js';
import path from 'node:path';
import {
  ARTIFACTS_DIR,
  launchChromium,
  screenshot,
  skipWithoutChromium,
  type Browser,
} from '../../harness/chromium.js';
import { edit, NACK_TEXT, nextCompile, startScene, virtualService, type StatusScene } from './status-fixture.js';

const INJECTED_NAME = '<img src=x onerror="window.injected=2">';

(skipWithoutChromium('test/ui/status-page.test.ts') ? describe.skip : describe)('the status page in Chromium', () => {
  let scene: StatusScene;
  let browser: Browser;

  beforeAll(async () => {
    scene = await startScene();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await scene?.close();
  });

  test('shows the NACK with its text, follows an edit without a reload, keeps markup as text', async () => {
    const { serving } = scene;
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`http://127.0.0.1:${serving.adminPort}/`);

    // The NACKing Envoy, by its node id (markup in it shown as text), with Envoy's words.
    const nackingBlock = page.locator('.client', { hasText: 'envoy-<b>nacking</b>' });
    await expect(nackingBlock.locator('.nack pre').textContent()).resolves.toBe(NACK_TEXT);
    expect(await nackingBlock.locator('td').nth(3).textContent()).toMatch(/^NACK/);
    const goodBlock = page.locator('.client', { hasText: 'envoy-good' });
    expect(await goodBlock.locator('td').nth(3).textContent()).toBe('up to date');
    expect(await page.locator('#sidecars').textContent()).toMatch(/extauth-1 ready/);

    // An edit on disk: the new version on the page, from the script, in the same document.
    const before = await page.locator('#version code').getAttribute('title');
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    const compiled = nextCompile(serving, true);
    edit(scene.vsFile, virtualService('/v2', 9090));
    const after = (await compiled) as { version: string };
    // The good Envoy takes the new clusters; the NACKing one is left with its NACK.
    scene.good.ack(await scene.good.expect(TYPE_URL.cluster));
    await page.waitForFunction(
      (v) => document.querySelector('#version code')?.getAttribute('title') === v,
      after.version,
    );
    expect(after.version).not.toBe(before);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.locator('#changes li').first().textContent()).toContain('virtualservice.yaml');
    await page.waitForFunction(
      () => document.querySelector('.client[data-node="envoy-good"] td:nth-child(4)')?.textContent === 'up to date',
    );

    // A resource whose name is markup: rejected, shown as text, nothing run.
    const failed = nextCompile(serving, false);
    writeFileSync(
      path.join(scene.dir, 'injected.yaml'),
      `apiVersion: gloo.gateway.example/v1
kind: Upstream
metadata: {name: '${INJECTED_NAME}', namespace: default}
spec:
  static: {hosts: [{addr: 10.0.0.7, port: 8000}]}
`,
    );
    await failed;
    const rejected = page.locator('#resources tr.rejected');
    await rejected.first().waitFor();
    expect(await rejected.first().locator('td').first().textContent()).toBe(`Upstream default/${INJECTED_NAME}`);
    expect(await page.locator('#summary').textContent()).toMatch(/last compile failed/);
    expect(await page.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);

    const file = await screenshot(page, 'status-page');
    if (process.env.UPDATE_SCREENSHOTS === '1')
      copyFileSync(file, path.join(ARTIFACTS_DIR, '..', 'docs', 'images', 'status-page.png'));
  });
});
