/**
 * Gloo's customAuth on a virtual host or route: the check goes to a team's
 * own ext_authz server, the one Gloo's Settings resource names (`extauth`,
 * or `namedExtauth.<name>` for a customAuth with a name). The server's
 * Upstream becomes a cluster like any other the gateway sends to, and must
 * speak HTTP/2 unless the server answers plain HTTP checks (httpService).
 */
import { fieldError, type Diagnostic, type FieldPath } from '../diagnostics.js';
import type { CustomAuthHttpIR, CustomAuthIR, CustomAuthServerIR, UpstreamIR } from '../ir/model.js';
import type { Ref } from '../kinds/resource.js';
import type { ExtauthServerSpec, SettingsSpec } from '../kinds/settings.js';
import type { Resource } from '../validate/validate.js';
import type { FindUpstream } from './index.js';
import type { Lookups } from './lookups.js';
import { http2Problem } from './ext-proc.js';
import { re2Problem } from './matchers.js';

/** Gloo's default requestTimeout. */
const DEFAULT_TIMEOUT = '0.200s';

export type CustomAuthSpec = { contextExtensions?: Record<string, string>; name?: string };

export function customAuthResolver(
  lookups: Lookups,
  findUpstream: FindUpstream,
  used: (path: FieldPath, owner: Resource, upstream: UpstreamIR) => void,
  diagnostics: Diagnostic[],
): (path: FieldPath, spec: CustomAuthSpec, from: Resource) => CustomAuthIR | undefined {
  return (path, spec, from) => {
    const fail = (origin: Resource, at: FieldPath, message: string, hint: string) => {
      diagnostics.push(fieldError('resolve', origin.origin, at, message, hint));
      return undefined;
    };
    const all = lookups.all('Settings');
    if (all.length === 0)
      return fail(
        from,
        path,
        "names no server: customAuth's server is in Gloo's Settings resource, and none is in the inputs",
        'add the Settings (gloo.solo.io/v1) with spec.extauth.extauthzServerRef naming the Upstream of your ext_authz server',
      );
    if (all.length > 1)
      return fail(
        from,
        path,
        `finds ${all.length} Settings resources (${all.map((s) => `${s.namespace}/${s.name}`).join(', ')}); Gloo reads one`,
        'keep one Settings resource in the inputs',
      );
    const settings = all[0]!;
    const spec_ = settings.spec as unknown as SettingsSpec;
    const server: ExtauthServerSpec | undefined =
      spec.name === undefined ? spec_.extauth : spec_.namedExtauth?.[spec.name];
    const serverPath = spec.name === undefined ? ['spec', 'extauth'] : ['spec', 'namedExtauth', spec.name];
    if (!server)
      return fail(
        from,
        [...path, ...(spec.name === undefined ? [] : ['name'])],
        spec.name === undefined
          ? `Settings ${settings.namespace}/${settings.name} has no extauth`
          : `Settings ${settings.namespace}/${settings.name} has no namedExtauth "${spec.name}"`,
        spec.name === undefined
          ? 'set spec.extauth.extauthzServerRef in the Settings, or name one of its namedExtauth servers'
          : `name one of ${
              Object.keys(spec_.namedExtauth ?? {})
                .map((n) => `"${n}"`)
                .join(', ') || 'its namedExtauth servers (it has none)'
            }`,
      );
    const refPath = [...serverPath, 'extauthzServerRef'];
    const upstream = findUpstream(settings, refPath, server.extauthzServerRef as Ref);
    if (!upstream) return undefined;
    const problem = server.httpService ? undefined : http2Problem(upstream);
    if (problem) return fail(settings, refPath, problem.message, problem.hint);
    const httpPath = [...serverPath, 'httpService'];
    const http =
      server.httpService &&
      httpCheck(server.httpService, httpPath, (at, message, hint) => fail(settings, at, message, hint));
    if (http === null) return undefined;
    used(refPath, settings, upstream);
    const body = server.requestBody;
    const ir: CustomAuthServerIR = {
      name: spec.name ?? '',
      cluster: upstream.name,
      timeout: server.requestTimeout ?? DEFAULT_TIMEOUT,
      failureModeAllow: server.failureModeAllow ?? false,
      clearRouteCache: server.clearRouteCache ?? false,
      ...(server.grpcService?.authority !== undefined ? { authority: server.grpcService.authority } : {}),
      ...(server.statusOnError !== undefined ? { statusOnError: server.statusOnError } : {}),
      ...(server.statPrefix !== undefined ? { statPrefix: server.statPrefix } : {}),
      ...(http ? { http } : {}),
      ...(body
        ? {
            requestBody: {
              maxRequestBytes: body.maxRequestBytes ?? 0,
              allowPartialMessage: body.allowPartialMessage ?? false,
              packAsBytes: body.packAsBytes ?? false,
            },
          }
        : {}),
    };
    return { server: ir, contextExtensions: spec.contextExtensions ?? {} };
  };
}

/** Gloo's httpService as the IR has it (names in lower case, as Envoy holds them), or null after an error. */
function httpCheck(
  spec: NonNullable<ExtauthServerSpec['httpService']>,
  path: FieldPath,
  fail: (at: FieldPath, message: string, hint: string) => undefined,
): CustomAuthHttpIR | null {
  const regexes = spec.request?.allowedHeadersRegex ?? [];
  for (const [i, pattern] of regexes.entries()) {
    const problem = re2Problem(pattern);
    if (problem !== undefined) {
      fail(
        [...path, 'request', 'allowedHeadersRegex', i],
        `is not a regex Envoy accepts: ${problem}`,
        'write an RE2 regex',
      );
      return null;
    }
  }
  const names = (list: string[] | undefined) => (list ?? []).map((n) => n.toLowerCase());
  return {
    // The request's path starts with '/': Gloo drops the prefix's own trailing one.
    pathPrefix: (spec.pathPrefix ?? '').replace(/\/$/, ''),
    allowedHeaders: names(spec.request?.allowedHeaders),
    allowedHeadersRegex: regexes,
    headersToAdd: spec.request?.headersToAdd ?? {},
    allowedUpstreamHeaders: names(spec.response?.allowedUpstreamHeaders),
    allowedClientHeaders: names(spec.response?.allowedClientHeaders),
    allowedUpstreamHeadersToAppend: names(spec.response?.allowedUpstreamHeadersToAppend),
  };
}
