/**
 * The status page's routes on serve's admin port, and the view /status adds
 * to its JSON: GET / and /ui (the page), /ui/fragment (the part that
 * changes), /ui/page.js (its script). Read-only, on the admin port's address.
 */
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../control.js';
import type { XdsServer } from '../server/server.js';
import { StatusBook } from './book.js';
import { PAGE_SCRIPT } from './page-script.js';
import { renderPage, renderStatus, type PageMeta } from './page.js';
import { statusView, type StatusView } from './view.js';

/** Everything but inline styles and scripts from this origin: a name that slipped through escaping would still not run. */
const CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export class StatusPages {
  private readonly book: StatusBook;

  /** Made before the first compile, to see it. */
  constructor(
    private readonly control: ControlPlane,
    private readonly server: XdsServer,
  ) {
    this.book = new StatusBook(control);
  }

  view(): StatusView {
    return statusView({
      cache: this.control.cache,
      streams: this.server.status(),
      inputs: this.control.inputs,
      diagnostics: this.control.diagnostics,
      book: this.book,
    });
  }

  private meta(): PageMeta {
    const { control } = this;
    return {
      ready: control.ready,
      version: control.version,
      generation: control.generation,
      snapshotAt: control.snapshotAt?.toISOString(),
      lastCompile: control.lastCompile && { ...control.lastCompile, at: control.lastCompile.at.toISOString() },
    };
  }

  register(app: FastifyInstance): void {
    const page = async (_req: unknown, reply: import('fastify').FastifyReply) =>
      reply
        .header('content-security-policy', CSP)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(renderPage(this.view(), this.meta()));
    app.get('/', page);
    app.get('/ui', page);
    app.get('/ui/fragment', async (_req, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(renderStatus(this.view(), this.meta())),
    );
    app.get('/ui/page.js', async (_req, reply) =>
      reply.header('cache-control', 'no-store').type('text/javascript; charset=utf-8').send(PAGE_SCRIPT),
    );
  }
}
