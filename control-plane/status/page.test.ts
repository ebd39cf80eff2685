/** The page's renderer: every value that comes from inputs or clients is escaped, wherever it is shown. */
import { renderPage, renderStatus } from './page.js';
import type { StatusView } from './view.js';

const EVIL = `<script>alert("x")</script>&'`;
const ESCAPED = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;';

function client(stream: number) {
  return {
    stream,
    nodeId: EVIL,
    proxy: EVIL,
    cluster: EVIL,
    userAgent: EVIL,
    address: EVIL,
    connectedAt: '2026-11-28T03:00:00.000Z',
    protocol: 'sotw' as const,
    types: [
      {
        type: EVIL,
        typeUrl: EVIL,
        current: EVIL,
        acked: EVIL,
        upToDate: false,
        nacked: { version: EVIL, message: EVIL, at: EVIL },
      },
    ],
  };
}

const view: StatusView = {
  proxies: [{ name: EVIL, version: EVIL, envoys: [client(1)] }],
  sidecars: [{ ...client(2), ready: false }],
  resources: [{ resource: EVIL, file: EVIL, line: 3, state: 'rejected', messages: [EVIL] }],
  diagnostics: [{ severity: 'error', resource: EVIL, text: EVIL }],
  changes: [
    {
      generation: 1,
      version: EVIL,
      at: '2026-11-28T03:00:00.000Z',
      files: [EVIL],
      resources: { added: [EVIL], changed: [EVIL], removed: [EVIL] },
      xds: { [EVIL]: '+1 ~0 -0' },
    },
  ],
};

test('no value reaches the page unescaped', () => {
  const html = renderStatus(view, { ready: true, version: EVIL, generation: 1, snapshotAt: EVIL });
  expect(html).not.toContain('<script');
  expect(html).not.toContain(`"x"`);
  expect(html).toContain(ESCAPED);
  // Each place shows it: node id, role, address, type, versions, NACK, resource, file, messages, diagnostics, changes.
  expect(html.split('&lt;script&gt;').length - 1).toBeGreaterThanOrEqual(20);
  const page = renderPage(view, { ready: false, generation: 0 });
  expect(page.match(/<script/g)).toEqual(['<script']);
  expect(page).toContain('<script src="ui/page.js"></script>');
});
