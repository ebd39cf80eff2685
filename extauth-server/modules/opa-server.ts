/**
 * The `opaServerAuth` config: the decision is asked of an Open Policy Agent
 * server's Data API, `POST <server>/v1/data/<package as a path>/<rule>`
 * with `{"input": {"check_request", "http_request", "state"}}` (the input
 * Gloo gives its policies). A result of `true`, or a list whose first item
 * is `true`, allows the request; any other result, or none (the rule is
 * undefined for this input), is 403. A server that cannot be reached, does
 * not answer within 5 s or answers anything but 200 gives 503.
 */
import { Agent, request as send } from 'undici';
import { DEFAULT_SERVICE_TIMEOUT_MS, REGO_PACKAGE, REGO_RULE } from '../../contract/extauth.js';
import { ConfigError, str, type Obj } from '../config-fields.js';
import {
  allow,
  deny,
  type AuthModule,
  type AuthRequest,
  type Check,
  type ModuleInstance,
  type Prepared,
  type ServiceAnswer,
  type Verdict,
} from '../module.js';
import { messageType } from '../protos.js';

export interface OpaServerSettings {
  /** The Data API document's URL: server, package and rule. */
  queryUrl: string;
}

function parseOpaServer(raw: Obj, where: string): OpaServerSettings {
  const server = str(raw, 'server_url', where, true);
  if (!/^https?:\/\/[^/?#\s]+$/.test(server))
    throw new ConfigError(`${where}.server_url: "${server}" is not http(s)://host:port`);
  const pkg = str(raw, 'package', where, true);
  if (!REGO_PACKAGE.test(pkg)) throw new ConfigError(`${where}.package: "${pkg}" is not a Rego package name`);
  const rule = str(raw, 'rule_name', where);
  if (rule && !REGO_RULE.test(rule))
    throw new ConfigError(`${where}.rule_name: "${rule}" is not a rule name (a / path may follow)`);
  return { queryUrl: `${server}/v1/data/${pkg.split('.').join('/')}${rule ? `/${rule}` : ''}` };
}

const allowed = allow({ identity: 'OPA policy' });

/** Whether a Data API result allows the request (Gloo's rule for OPA queries). */
export function opaAllows(result: unknown): boolean {
  return result === true || (Array.isArray(result) && result[0] === true);
}

function opaInput(request: AuthRequest): unknown {
  const checkRequest = messageType('envoy.service.auth.v3.CheckRequest').deserialize(Buffer.from(request.raw)) as {
    attributes?: { request?: { http?: unknown } };
  };
  return {
    check_request: checkRequest,
    http_request: checkRequest.attributes?.request?.http ?? {},
    state: request.state,
  };
}

async function ask(agent: Agent, s: OpaServerSettings, request: AuthRequest): Promise<ServiceAnswer> {
  let status: number;
  let text: string;
  try {
    const res = await send(s.queryUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: opaInput(request) }),
      dispatcher: agent,
      signal: AbortSignal.timeout(DEFAULT_SERVICE_TIMEOUT_MS),
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (err) {
    const e = err as Error;
    return {
      failed:
        e.name === 'TimeoutError'
          ? `no answer within ${DEFAULT_SERVICE_TIMEOUT_MS} ms`
          : `unreachable (${(e.cause as Error | undefined)?.message ?? e.message})`,
    };
  }
  if (status !== 200) return { failed: `answered ${status}` };
  let result: unknown;
  try {
    result = (JSON.parse(text) as { result?: unknown }).result;
  } catch {
    return { failed: 'answered something that is not JSON' };
  }
  return opaAllows(result)
    ? allowed
    : deny(
        403,
        result === undefined ? 'the OPA rule is undefined for this request' : 'the OPA policy denies the request',
      );
}

class OpaServerInstance implements ModuleInstance<OpaServerSettings> {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });

  prepare(settings: readonly OpaServerSettings[]): Prepared<OpaServerSettings> {
    const checks = new Map<OpaServerSettings, Check>(
      settings.map((s) => [
        s,
        (request) =>
          ask(this.agent, s, request).then((a): Verdict =>
            'failed' in a ? deny(503, `OPA server ${new URL(s.queryUrl).origin}: ${a.failed}`) : a,
          ),
      ]),
    );
    return { check: (s) => checks.get(s)!, commit() {}, abort() {} };
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

export const opaServerModule: AuthModule<OpaServerSettings> = {
  field: 'opa_server_auth',
  parse: parseOpaServer,
  create: () => new OpaServerInstance(),
};
