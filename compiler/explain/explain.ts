/**
 * `sluice explain`: one request through the compiled configuration, as
 * Envoy takes it: listener, connection manager (header and path handling),
 * virtual host, route, then the HTTP filters in their configured order, the
 * router last. The first filter that answers ends it; checks explain cannot
 * make offline become assumptions of the answer, with the other answers
 * they could lead to.
 */
import type { Json } from '../translate/output.js';
import type { GatewayConfig } from './config.js';
import { CSRF_FILTER, evaluateCsrf } from './csrf.js';
import { evaluateWasm, isWasmFilter } from './wasm.js';
import { AWS_LAMBDA_FILTER, LUA_FILTER, evaluateAwsLambda, evaluateLambdaErrors } from './aws-lambda.js';
import { evaluateExtProc, isExtProcFilter } from './ext-proc.js';
import { evaluateLocalRateLimit, evaluateNetworkLocalRateLimit, LOCAL_RATELIMIT_FILTER } from './local-ratelimit.js';
import { evaluateRateLimit, isRateLimitFilter } from './ratelimit.js';
import { destination, endpointsOf, graphqlApiOf, shownCluster } from './destination.js';
import { explorerVerdict } from './graphql-explorer.js';
import { evaluateCustomAuth, isCustomAuthFilter } from './custom-auth.js';
import { EXTAUTH_FILTER, evaluateExtauth } from './extauth.js';
import { GATEWAY_FILTERS, evaluateGatewayFilter } from './gateway-filters.js';
import { JWT_FILTER, evaluateJwt } from './jwt.js';
import { findVirtualHost, matchRoute, normalizePath, perFilterConfig } from '../envoy/match.js';
import type { Answer, ExplainOptions, ExplainRequest, Explanation, Outcome, Step } from './model.js';
import { RBAC_FILTER, evaluateRbac } from './rbac.js';
import { DEFAULT_PROXY_NAME } from '../resolve/gateways.js';
import { HEADER_MUTATION_FILTER, evaluateHeaderMutation } from './header-mutation.js';
import type { HttpRequest } from '../envoy/request.js';
import { toHttpRequest } from './request.js';
import { evaluateEarlyHeaders } from './early-headers.js';

const ROUTING = 'docs/envoy-behaviour.md § How explain reads the configuration: routing';
const HCM = 'envoy.filters.network.http_connection_manager';
const ROUTER = 'envoy.filters.http.router';

function socketPort(listener: Json): number {
  return Number(((listener.address as Json).socket_address as Json).port_value);
}

function pickListener(listeners: Json[], req: HttpRequest): { listener: Json; why: string } {
  const byPort = listeners.find((l) => socketPort(l) === req.port);
  if (byPort) return { listener: byPort, why: `port ${req.port} of the URL` };
  if (listeners.length === 1) {
    const only = listeners[0]!;
    return {
      listener: only,
      why: req.port
        ? `the only listener (port ${socketPort(only)}; the URL's ${req.port} is taken to reach it through a load balancer or Service)`
        : 'the only listener',
    };
  }
  throw new Error(
    `no listener for the URL's port ${req.port ?? '(none)'}: the listeners are on ${listeners.map(socketPort).join(', ')}; put one of these ports in the URL`,
  );
}

function connectionManager(chains: Json[], listener: Json): Json {
  for (const chain of chains) {
    const f = ((chain.filters as Json[] | undefined) ?? []).find((x) => x.name === HCM);
    if (f) return f.typed_config as Json;
  }
  throw new Error(`listener ${String(listener.name)} has no HTTP connection manager`);
}

/**
 * The filter chain of a TLS listener Envoy picks for the SNI a client sends
 * (curl: the URL's host): an exact server name, then the longest `*.` suffix,
 * then the chain without server names (Envoy's filter chain match order).
 */
function tlsChain(listener: Json, chains: Json[], sni: string, t: Trace): Json {
  const names = (c: Json) => ((c.filter_chain_match as Json | undefined)?.server_names as string[] | undefined) ?? [];
  const host = sni.toLowerCase();
  const wildcard = (c: Json) =>
    Math.max(
      -1,
      ...names(c)
        .filter((n) => n.startsWith('*.') && host.endsWith(n.slice(1)))
        .map((n) => n.length),
    );
  const chain =
    chains.find((c) => names(c).includes(host)) ??
    [...chains].sort((a, b) => wildcard(b) - wildcard(a)).find((c) => wildcard(c) >= 0) ??
    chains.find((c) => names(c).length === 0);
  if (!chain)
    throw new Error(
      `no filter chain of listener ${String(listener.name)} matches SNI ${JSON.stringify(host)}: the TLS handshake fails (its chains serve ${chains.flatMap(names).join(', ')})`,
    );
  const context = (chain.transport_socket as Json).typed_config as Json;
  const common = context.common_tls_context as Json;
  const certificate = ((common.tls_certificate_sds_secret_configs as Json[] | undefined) ?? [])
    .map((c) => c.name)
    .join(', ');
  const combined = common.combined_validation_context as Json | undefined;
  const ca = (
    (common.validation_context_sds_secret_config ?? combined?.validation_context_sds_secret_config) as Json | undefined
  )?.name;
  const sans = [
    ...new Set(
      (
        ((combined?.default_validation_context as Json | undefined)?.match_typed_subject_alt_names as
          Json[] | undefined) ?? []
      ).map((m) => String((m.matcher as Json).exact)),
    ),
  ];
  const details = context.require_client_certificate
    ? [
        `the client must present a certificate signed by ${String(ca)}${sans.length > 0 ? ` naming ${sans.join(' or ')}` : ''}, or the handshake fails`,
      ]
    : [];
  t.add(
    'tls',
    `SNI ${host}: ${names(chain).length > 0 ? `the filter chain for ${names(chain).join(', ')}` : 'the filter chain without server names'}, certificate ${certificate}`,
    details,
  );
  return chain;
}

class Trace {
  readonly steps: Step[] = [];
  readonly assumptions: string[] = [];
  readonly otherwise: Outcome[] = [];
  matched: Explanation['matched'] = {};

  add(stage: string, summary: string, details: string[] = [], cite = ROUTING): void {
    this.steps.push({ stage, summary, details, cite });
  }

  assume(a: { text: string; otherwise: Outcome[] } | undefined): void {
    if (!a) return;
    this.assumptions.push(a.text);
    for (const o of a.otherwise)
      if (!this.otherwise.some((x) => x.status === o.status && x.body === o.body)) this.otherwise.push(o);
  }

  answer(outcome: Outcome): Answer {
    return { ...outcome, assumptions: this.assumptions, otherwise: this.otherwise };
  }
}

export async function explain(
  config: GatewayConfig,
  request: ExplainRequest,
  options: ExplainOptions & { proxy?: string } = {},
): Promise<Explanation> {
  const t = new Trace();
  const done = (outcome: Outcome): Explanation => ({
    request: { method: request.method.toUpperCase(), url: request.url },
    proxy: options.proxy ?? DEFAULT_PROXY_NAME,
    steps: t.steps,
    matched: t.matched,
    answer: t.answer(outcome),
  });
  const req = toHttpRequest(request);

  const { listener, why } = pickListener(config.listeners, req);
  t.add('listener', `${String(listener.name)} (${why})`);
  const chains = (listener.filter_chains as Json[] | undefined) ?? [];
  const tlsChains = chains.filter((c) => c.transport_socket);
  if (tlsChains.length === chains.length && tlsChains.length > 0 && req.scheme !== 'https')
    throw new Error(`listener ${String(listener.name)} serves TLS only: use an https:// URL`);
  const chain =
    req.scheme === 'https' && tlsChains.length > 0
      ? [tlsChain(listener, tlsChains, new URL(request.url).hostname, t)]
      : chains.filter((c) => !c.transport_socket && !(c.filter_chain_match as Json | undefined)?.server_names);
  // A hybrid gateway's chains can be for some client addresses only; explain cannot know the client's.
  const sources =
    ((chain[0]?.filter_chain_match as Json | undefined)?.source_prefix_ranges as Json[] | undefined) ?? [];
  if (sources.length > 0)
    t.assume({
      text: `the client connects from ${sources.map((r) => `${String(r.address_prefix)}/${String(r.prefix_len)}`).join(' or ')} (the filter chain taken is for those addresses)`,
      otherwise: [],
    });
  const hcm = connectionManager(chain, listener);
  const connectionBucket = evaluateNetworkLocalRateLimit((chain[0]?.filters as Json[] | undefined) ?? []);
  if (connectionBucket) {
    t.steps.push(connectionBucket.step);
    t.assume(connectionBucket.assumption);
  }

  // headers_with_underscores_action: the connection manager drops (or refuses) such headers before anything reads them.
  const underscoreAction = (hcm.common_http_protocol_options as Json | undefined)?.headers_with_underscores_action as
    string | undefined;
  const underscored = [...req.headers.keys()].filter((k) => k.includes('_'));
  if (underscored.length > 0 && underscoreAction === 'REJECT_REQUEST') {
    t.add('headers', `header ${underscored[0]} has an underscore: headers_with_underscores_action REJECT_REQUEST`);
    return done({ status: 400, body: '', by: 'envoy' });
  }
  if (underscored.length > 0 && underscoreAction === 'DROP_HEADER') {
    for (const k of underscored) req.headers.delete(k);
    t.add('headers', `dropped ${underscored.join(', ')} (headers_with_underscores_action DROP_HEADER)`);
  }

  const early = evaluateEarlyHeaders(hcm, req, config.secretHeaders);
  if (early) t.steps.push(early);

  const normalized = normalizePath(req.path, hcm);
  if (normalized.notes.some((n) => n.includes('REJECT_REQUEST'))) {
    t.add('path', normalized.notes.join('; '));
    return done({ status: 400, body: '', by: 'envoy' });
  }
  t.add(
    'path',
    normalized.notes.length
      ? `${normalized.path} (${normalized.notes.join('; ')})`
      : `${req.path} (unchanged by normalization)`,
  );
  if (normalized.redirect) return done({ status: 307, body: '', headers: { location: normalized.path }, by: 'envoy' });
  req.path = normalized.path;

  // strip_any_host_port: the connection manager drops Host's port before anything matches it.
  const port = /:\d+$/.exec(req.authority);
  if (hcm.strip_any_host_port && port) {
    t.add('host', `${req.authority} without its port (strip_any_host_port)`);
    req.authority = req.authority.slice(0, port.index);
  }
  const rds = hcm.rds as Json | undefined;
  const routeConfig = (rds
    ? config.routeConfigurations.get(rds.route_config_name as string)
    : (hcm.route_config as Json | undefined)) ?? { virtual_hosts: [] };
  const found = findVirtualHost((routeConfig.virtual_hosts as Json[] | undefined) ?? [], req.authority);
  const vh = found.vh;
  let route: Json | undefined;
  if (!vh) t.add('virtual host', `none for host ${req.authority}: ${found.why}`);
  else {
    t.matched.virtualHost = vh.name as string;
    t.add('virtual host', `${String(vh.name)}: ${found.why}`);
    const tried: string[] = [];
    for (const r of (vh.routes as Json[] | undefined) ?? []) {
      const v = matchRoute(r.match as Json, req);
      if (v.ok) {
        route = r;
        break;
      }
      tried.push(`${String(r.name ?? '(unnamed)')}: ${v.why}`);
    }
    if (route) {
      t.matched.route = route.name as string | undefined;
      t.add(
        'route',
        `${String(route.name ?? '(unnamed)')}: ${matchRoute(route.match as Json, req).why}`,
        tried.map((x) => `tried first: ${x}`),
      );
    } else t.add('route', `none of the ${tried.length} routes of ${String(vh.name)} matches`, tried);
  }

  // Per-filter configs come through the route: without one, filters see none of them (resolveMostSpecificPerFilterConfig).
  let levels = route ? { cluster: shownCluster(route), route, vh, routeConfig } : {};
  let metadata: Json = {};
  const removed: string[] = [];
  let added: Record<string, string> = {};
  let responseHeaders: Record<string, string> = {};
  for (const filter of (hcm.http_filters as Json[] | undefined) ?? []) {
    const name = filter.name as string;
    const typed = (filter.typed_config as Json | undefined) ?? {};
    // HttpFilter.disabled: the filter runs only where the route's or virtual host's per-filter config enables it.
    if (filter.disabled === true && !perFilterConfig(name, levels)) {
      t.add(
        name.replace('envoy.filters.http.', ''),
        'off: disabled by default, and neither the route nor its virtual host enables it',
      );
      continue;
    }
    if (name === HEADER_MUTATION_FILTER) {
      t.steps.push(evaluateHeaderMutation(typed, levels, req));
    } else if (name === JWT_FILTER) {
      const clusterEndpoints = (name: string) =>
        config.clusters.has(name) ? endpointsOf(config.clusters.get(name)!, config, name) : [];
      const r = await evaluateJwt(typed, levels, req, request, { ...options, clusterEndpoints });
      t.steps.push(r.step);
      t.assume(r.assumption);
      if (r.reply) return done(r.reply);
      metadata = { ...metadata, ...r.metadata };
      removed.push(...r.removedHeaders);
      added = { ...added, ...r.addedHeaders };
      if (r.clearRouteCache && vh) {
        // The route was chosen with the headers the client sent; the router now chooses again with the claims.
        const again = ((vh.routes as Json[] | undefined) ?? []).find((x) => matchRoute(x.match as Json, req).ok);
        t.add(
          'route',
          again === route
            ? 'the same route again (jwt_authn cleared the route cache)'
            : `${again ? String(again.name ?? '(unnamed)') : 'none'} now (jwt_authn cleared the route cache; the claim headers changed the match)`,
          [],
          ROUTING,
        );
        if (again !== route) {
          route = again;
          t.matched.route = again?.name as string | undefined;
          levels = again ? { cluster: shownCluster(again), route: again, vh, routeConfig } : {};
        }
      }
    } else if (name === RBAC_FILTER) {
      const r = evaluateRbac(typed, levels, req, metadata, socketPort(listener));
      t.steps.push(r.step);
      if (r.reply) return done(r.reply);
    } else if (name === EXTAUTH_FILTER || isCustomAuthFilter(name)) {
      if (!route) {
        // ext_authz skips the check when no route matched (getPerRouteFlags).
        t.add(
          name.slice('envoy.filters.http.'.length),
          'skipped: no route matched',
          [],
          'docs/envoy-behaviour.md § How explain reads the configuration: ext_authz',
        );
        continue;
      }
      if (name !== EXTAUTH_FILTER) {
        const r = evaluateCustomAuth(name, typed, levels, req.path);
        t.steps.push(r.step);
        t.assume(r.assumption);
        continue;
      }
      const r = await evaluateExtauth(levels, req, config.authConfigs, options);
      t.steps.push(r.step);
      t.assume(r.assumption);
      if (r.reply) return done(r.reply);
      removed.push(...r.removedHeaders);
      added = { ...added, ...r.addedHeaders };
    } else if (isRateLimitFilter(name)) {
      const r = evaluateRateLimit(typed, levels, req, config.rateLimitDomains);
      t.steps.push(r.step);
      t.assume(r.assumption);
    } else if (name === LOCAL_RATELIMIT_FILTER) {
      const r = evaluateLocalRateLimit(typed, levels);
      t.steps.push(r.step);
      t.assume(r.assumption);
      responseHeaders = { ...responseHeaders, ...r.responseHeaders };
    } else if (GATEWAY_FILTERS.has(name)) {
      const r = evaluateGatewayFilter(name, typed, levels, req);
      t.steps.push(r.step);
      t.assume(r.assumption);
      if (r.reply) return done(r.reply);
      responseHeaders = { ...responseHeaders, ...r.responseHeaders };
    } else if (isExtProcFilter(name)) {
      const r = evaluateExtProc(name, typed, levels);
      t.steps.push(r.step);
      t.assume(r.assumption);
    } else if (name === AWS_LAMBDA_FILTER) {
      const cluster = String((route?.route as Json | undefined)?.cluster ?? '');
      t.steps.push(evaluateAwsLambda(typed, levels, cluster, config.clusters.get(cluster)));
    } else if (name === LUA_FILTER) {
      const r = evaluateLambdaErrors(levels);
      t.steps.push(r.step);
      t.assume(r.assumption);
    } else if (isWasmFilter(name)) {
      const r = evaluateWasm(name, typed);
      t.steps.push(r.step);
      t.assume(r.assumption);
    } else if (name === CSRF_FILTER) {
      const r = evaluateCsrf(typed, levels, req);
      t.steps.push(r.step);
      t.assume(r.assumption);
      if (r.reply) return done(r.reply);
    } else if (name === ROUTER) {
      if (!route) {
        t.add('router', 'no route: 404');
        return done({ status: 404, body: '', by: 'envoy' });
      }
      for (const f of ((typed.upstream_http_filters as Json[] | undefined) ?? []).filter((u) =>
        isExtProcFilter(u.name as string),
      )) {
        const r = evaluateExtProc(f.name as string, f.typed_config as Json, levels, true);
        t.steps.push(r.step);
        t.assume(r.assumption);
      }
      const d = destination(route, vh!, routeConfig, config, req.path, removed, added);
      t.steps.push(d.step);
      if (d.cluster) t.matched.cluster = d.cluster;
      const api = graphqlApiOf(route);
      const explorer = api && d.outcome.status === 'upstream' ? explorerVerdict(api, config, req) : undefined;
      if (explorer) d.step.details.push(explorer.detail);
      const outcome = explorer?.outcome ?? d.outcome;
      const upstream = outcome.status === 'upstream' && Object.keys(responseHeaders).length > 0;
      return done(upstream ? { ...outcome, headers: { ...outcome.headers, ...responseHeaders } } : outcome);
    } else {
      t.add(name, 'explain does not evaluate this filter');
      t.assume({ text: `filter ${name} lets the request through`, otherwise: [] });
    }
  }
  throw new Error('the connection manager has no router filter: Envoy would not forward anything');
}
