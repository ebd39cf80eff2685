/**
 * The problems `sluice check` reports, read from serve's /status: one per
 * Envoy type NACKed, proxy without an Envoy, rejected resource (or error
 * that names none), sidecar whose configuration is behind, and client on an
 * old version for longer than the limit. Pure, so the check command and its
 * tests read the same list.
 */
import type { ClientView, StatusView } from './view.js';

/** `sidecar`: a sidecar's health endpoint says it is not ready, or does not answer (the check asks it). */
export type ProblemKind =
  'not-ready' | 'nack' | 'no-envoy' | 'unknown-proxy' | 'rejected' | 'compile-error' | 'stale' | 'sidecar';

export interface Problem {
  kind: ProblemKind;
  /** One line, as printed. */
  message: string;
}

/** What /status holds that the check reads: the view and a few fields of the older part. */
export interface StatusDocument extends StatusView {
  ready: boolean;
  /** serve's clock when it answered (ISO 8601): staleness is measured on it. */
  at: string;
}

function who(client: ClientView, what: 'Envoy' | 'sidecar'): string {
  return `${what} ${JSON.stringify(client.nodeId)} (${client.address}, stream ${client.stream})`;
}

function clientProblems(client: ClientView, what: 'Envoy' | 'sidecar', now: number, staleAfterMs: number): Problem[] {
  const out: Problem[] = [];
  for (const t of client.types) {
    if (t.upToDate) continue;
    if (t.nacked)
      out.push({
        kind: 'nack',
        message: `${who(client, what)} NACKed ${t.type} version ${t.nacked.version}: ${t.nacked.message}`,
      });
    else if (t.behindSince && now - Date.parse(t.behindSince) > staleAfterMs)
      out.push({
        kind: 'stale',
        message: `${who(client, what)} has ${t.type} version ${t.acked ?? '(none)'}, not ${t.current}, for ${Math.round((now - Date.parse(t.behindSince)) / 1000)} s`,
      });
  }
  return out;
}

export function problemsOf(status: StatusDocument, staleAfterSeconds: number): Problem[] {
  const now = Date.parse(status.at);
  const staleAfterMs = staleAfterSeconds * 1000;
  const out: Problem[] = [];
  if (!status.ready)
    out.push({ kind: 'not-ready', message: 'serve has no snapshot: the inputs have not compiled yet' });
  for (const proxy of status.proxies) {
    if (proxy.envoys.length === 0) out.push({ kind: 'no-envoy', message: `proxy ${proxy.name}: no Envoy connected` });
    else if (status.ready && proxy.version === undefined)
      out.push({
        kind: 'unknown-proxy',
        message: `proxy ${proxy.name}: ${proxy.envoys.map((e) => JSON.stringify(e.nodeId)).join(', ')} name it (node metadata role) but no Gateway lists it: served no listeners`,
      });
    for (const envoy of proxy.envoys) out.push(...clientProblems(envoy, 'Envoy', now, staleAfterMs));
  }
  // A client behind, but neither NACKing nor past the limit, has a push on its way: not a problem yet.
  for (const sidecar of status.sidecars) out.push(...clientProblems(sidecar, 'sidecar', now, staleAfterMs));
  for (const r of status.resources)
    if (r.state === 'rejected') for (const message of r.messages) out.push({ kind: 'rejected', message });
  const named = new Set(status.resources.map((r) => r.resource));
  for (const d of status.diagnostics)
    if (d.severity === 'error' && (d.resource === undefined || !named.has(d.resource)))
      out.push({ kind: 'compile-error', message: d.text });
  return out;
}
