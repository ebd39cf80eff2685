/**
 * A browser for the OIDC tests: a cookie jar (tough-cookie), redirects
 * followed, the first form of a page submitted. Requests to the
 * application's origin go through a gateway the test gives (Envoy's
 * ext_authz as the tests play it: the sidecar asked over gRPC, the request
 * answered by the app when allowed, with the response headers the sidecar
 * adds); every other URL is fetched for real, which must be on 127.0.0.1.
 */
import { CookieJar } from 'tough-cookie';

export interface Page {
  url: string;
  status: number;
  headers: [string, string][];
  body: string;
}

/** What answers a request to the application: the gateway and the app behind it. */
export type Gateway = (url: URL, cookie: string) => Promise<Page>;

const header = (p: Page, name: string) => p.headers.find(([k]) => k === name)?.[1];

export class Browser {
  readonly jar = new CookieJar();
  /** Every page seen, in order (redirects included). */
  readonly visited: Page[] = [];

  constructor(
    private readonly appOrigin: string,
    private readonly gateway: Gateway,
    /** URLs where the browser stops instead of following (another application's callback). */
    private readonly stopAt: string[] = [],
  ) {}

  private async once(url: URL, init: { method?: string; body?: string } = {}): Promise<Page> {
    const cookie = await this.jar.getCookieString(url.href);
    let page: Page;
    if (url.origin === this.appOrigin) page = await this.gateway(url, cookie);
    else {
      if (url.hostname !== '127.0.0.1') throw new Error(`the test browser only goes to 127.0.0.1, not ${url.href}`);
      const request = () =>
        fetch(url, {
          method: init.method ?? 'GET',
          redirect: 'manual',
          headers: {
            ...(cookie ? { cookie } : {}),
            ...(init.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...(init.body !== undefined ? { body: init.body } : {}),
        });
      // As browsers do: a GET on a kept-alive connection the server closed meanwhile (ECONNRESET) is sent once more.
      const res = await request().catch((err: Error & { cause?: { code?: string } }) => {
        if (err.cause?.code === 'ECONNRESET' && (init.method ?? 'GET') === 'GET') return request();
        throw err;
      });
      const headers: [string, string][] = [];
      res.headers.forEach((v, k) => {
        if (k !== 'set-cookie') headers.push([k, v]);
      });
      for (const c of res.headers.getSetCookie()) headers.push(['set-cookie', c]);
      page = { url: url.href, status: res.status, headers, body: await res.text() };
    }
    for (const [k, v] of page.headers)
      if (k === 'set-cookie') await this.jar.setCookie(v, url.href, { ignoreError: true });
    this.visited.push(page);
    return page;
  }

  /** Goes to `url`, following redirects; the last page. */
  async go(url: string, init: { method?: string; body?: string } = {}): Promise<Page> {
    let target = new URL(url);
    let page = await this.once(target, init);
    for (let hops = 0; page.status >= 300 && page.status < 400 && header(page, 'location'); hops++) {
      if (hops > 20) throw new Error('more than 20 redirects');
      target = new URL(header(page, 'location')!, target);
      if (this.stopAt.some((s) => target.href.startsWith(s)))
        return { url: target.href, status: 0, headers: [], body: '' };
      page = await this.once(target);
    }
    return page;
  }

  /** Submits the first form of `page` with its hidden fields and `fields`, following redirects. */
  async submit(page: Page, fields: Record<string, string> = {}): Promise<Page> {
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url} (status ${page.status}):\n${page.body.slice(0, 500)}`);
    const values = new URLSearchParams();
    for (const m of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
      values.set(m[1]!, m[2]!);
    for (const [k, v] of Object.entries(fields)) values.set(k, v);
    return this.go(new URL(form[1]!.replace(/&amp;/g, '&'), page.url).href, {
      method: 'POST',
      body: values.toString(),
    });
  }

  /** The session through the provider's forms: login (any password), then consent when asked. */
  async login(page: Page, user: string): Promise<Page> {
    let p = page;
    for (let i = 0; i < 3 && /<form/.test(p.body); i++) {
      p = /name="login"/.test(p.body) ? await this.submit(p, { login: user, password: 'any' }) : await this.submit(p);
    }
    return p;
  }
}
