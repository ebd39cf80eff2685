/** The browser harness itself: Debian's Chromium renders a page served on 127.0.0.1 and runs its script. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, statSync } from 'node:fs';
import { launchChromium, screenshot, skipWithoutChromium, type Browser } from '../../harness/chromium.js';

(skipWithoutChromium('test/ui/chromium.test.ts') ? describe.skip : describe)(
  'headless Chromium (harness/chromium.ts)',
  () => {
    let browser: Browser;
    let server: Server;
    let origin: string;

    beforeAll(async () => {
      server = createServer((req, res) => {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          `<!doctype html><title>t</title><p id="static">from ${req.url}</p><p id="dynamic"></p>` +
            `<script>document.getElementById('dynamic').textContent = 'script ran ' + (6 * 7);</script>`,
        );
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    test('loads a page, runs its script, writes a screenshot', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin}/hello`);
      expect(await page.textContent('#static')).toBe('from /hello');
      expect(await page.textContent('#dynamic')).toBe('script ran 42');
      const file = await screenshot(page, 'harness-smoke');
      expect(existsSync(file) && statSync(file).size > 100).toBe(true);
    });
  },
);
