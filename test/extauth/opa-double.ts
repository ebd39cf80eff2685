/**
 * A protocol-faithful double of Open Policy Agent's Data API, for the tests
 * where no opa binary exists: `POST /v1/data/<path>` with `{"input": ...}`
 * answers 200 `{"result": <value>}`, or 200 `{}` when the document is
 * undefined (no rule at that path), as OPA does
 * (https://www.openpolicyagent.org/docs/latest/rest-api/#get-a-document-with-input);
 * a body that is not JSON is 400 with OPA's error shape. The rules are
 * TypeScript functions of the input, standing for the Rego a team would
 * write: what is checked is what sluice-extauth sends and how it reads the
 * answer, not Rego evaluation (./opa.test.ts does that with a real opa).
 */
import http from 'node:http';

export type Rule = (input: unknown) => unknown;

export interface OpaServer {
  port: number;
  /** Every query: the path and the input. */
  requests: { path: string; input: unknown }[];
  close(): Promise<void>;
}

export async function opaDataApiDouble(rules: Record<string, Rule>): Promise<OpaServer> {
  const requests: OpaServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method !== 'POST' || !path.startsWith('/v1/data'))
        return res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"resource_not_found"}');
      let parsed: { input?: unknown };
      try {
        parsed = body ? (JSON.parse(body) as { input?: unknown }) : {};
      } catch {
        return res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"code":"invalid_parameter","message":"body contains malformed input document"}');
      }
      requests.push({ path, input: parsed.input });
      const rule = rules[path.slice('/v1/data/'.length)];
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(rule ? { result: rule(parsed.input) } : {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    requests,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
