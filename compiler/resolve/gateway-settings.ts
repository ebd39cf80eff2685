/**
 * A Gateway's listener settings: the connection manager's settings and
 * timeouts, access logs, and the source ranges a listener accepts.
 */
import { isIP } from 'node:net';
import { parseDuration } from '../../contract/proto3-json.js';
import { fieldError, quote, type Diagnostic, type FieldPath, type Origin } from '../diagnostics.js';
import type { HcmMoreIR, ListenerFieldsIR } from '../ir/listener-options.js';
import type { AccessLogIR } from '../ir/access-log.js';
import type { CidrIR, HttpSettingsIR } from '../ir/model.js';
import type { GatewaySpec, HttpConnectionManagerSpec } from '../kinds/gateway.js';

/** The connection manager settings that are durations (the schema types them as strings). */
export const DURATIONS = [
  'idleTimeout',
  'streamIdleTimeout',
  'requestTimeout',
  'requestHeadersTimeout',
  'drainTimeout',
  'delayedCloseTimeout',
  'maxConnectionDuration',
  'maxStreamDuration',
] as const;

/** Gloo's CidrRange: an IP address and a prefix length within its family's; undefined after reporting one that is not. */
export function sourceRanges(
  specs: { addressPrefix: string; prefixLen?: number }[],
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): CidrIR[] | undefined {
  const ranges = specs.flatMap((r, i) => {
    const family = isIP(r.addressPrefix);
    const max = family === 6 ? 128 : 32;
    const prefixLen = r.prefixLen ?? max;
    if (family === 0)
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, i, 'addressPrefix'],
          `${quote(r.addressPrefix)} is not an IP address`,
          'write the network address, e.g. 10.0.0.0 with prefixLen 8',
        ),
      );
    else if (prefixLen > max)
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, i, 'prefixLen'],
          `prefixLen ${prefixLen} is longer than an IPv${family} address (${max} bits)`,
          `use 0 to ${max}`,
        ),
      );
    else return [{ address: r.addressPrefix, prefixLen }];
    return [];
  });
  return ranges.length === specs.length ? ranges : undefined;
}

export function httpSettings(
  spec: HttpConnectionManagerSpec | undefined,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): HttpSettingsIR {
  for (const field of DURATIONS) {
    const text = spec?.[field];
    if (text === undefined) continue;
    const nanos = parseDuration(text);
    if (nanos === undefined || nanos < 0n) {
      diagnostics.push(
        fieldError(
          'resolve',
          origin,
          [...path, field],
          `${quote(text)} is not a duration`,
          'write a number with a unit, e.g. "60s", "0.250s", "250ms" or "1m30s" ("0s": none)',
        ),
      );
    }
  }
  const {
    internalAddressConfig: _internal,
    upgrades: _upgrades,
    properCaseHeaderKeyFormat: _properCase,
    preserveCaseHeaderKeyFormat: _preserveCase,
    tracing: _tracing,
    earlyHeaderManipulation: _early,
    ...copied
  } = spec ?? {};
  return { ...copied, ...hcmMore(spec, origin, path, diagnostics) };
}

type Rewritten = Pick<HcmMoreIR, 'headerKeyFormat' | 'internalAddressConfig' | 'upgrades'>;

/** The settings that need more than a copy: one header key format of two, HTTP/1.0's host only with acceptHttp10, internal ranges checked, upgrades. */
function hcmMore(
  spec: HttpConnectionManagerSpec | undefined,
  origin: Origin,
  path: FieldPath,
  diagnostics: Diagnostic[],
): Rewritten {
  const out: Rewritten = {};
  if (!spec) return out;
  if (spec.properCaseHeaderKeyFormat) out.headerKeyFormat = 'properCase';
  else if (spec.preserveCaseHeaderKeyFormat) out.headerKeyFormat = 'preserveCase';
  if (spec.defaultHostForHttp10 !== undefined && !spec.acceptHttp10) {
    diagnostics.push(
      fieldError(
        'resolve',
        origin,
        [...path, 'defaultHostForHttp10'],
        'defaultHostForHttp10 applies only to HTTP/1.0 requests, and acceptHttp10 is not true (Gloo would ignore it)',
        'set acceptHttp10: true, or remove defaultHostForHttp10',
      ),
    );
  }
  const internal = spec.internalAddressConfig;
  if (internal) {
    const ranges = sourceRanges(
      internal.cidrRanges ?? [],
      origin,
      [...path, 'internalAddressConfig', 'cidrRanges'],
      diagnostics,
    );
    out.internalAddressConfig = {
      ...(internal.unixSockets !== undefined ? { unixSockets: internal.unixSockets } : {}),
      cidrRanges: ranges ?? [],
    };
  }
  if (spec.upgrades) {
    out.upgrades = spec.upgrades.flatMap((u) => {
      const [type, upgrade] = u.websocket
        ? (['websocket', u.websocket] as const)
        : u.connect
          ? (['CONNECT', u.connect] as const)
          : [];
      return type ? [{ type, enabled: upgrade.enabled ?? true }] : [];
    });
  }
  return out;
}

/** spec.options' fields of Envoy's Listener, with its own access logs resolved; undefined when none is set. */
export function listenerFields(
  options: GatewaySpec['options'],
  accessLogs: AccessLogIR[],
): ListenerFieldsIR | undefined {
  if (!options) return undefined;
  const proxyProtocol = options.proxyProtocol;
  const out: ListenerFieldsIR = {
    ...(accessLogs.length > 0 ? { accessLogs } : {}),
    ...(proxyProtocol
      ? {
          proxyProtocol: {
            rules: (proxyProtocol.rules ?? []).map((r) => ({
              tlvType: r.tlvType,
              key: r.onTlvPresent.key,
              ...(r.onTlvPresent.metadataNamespace ? { namespace: r.onTlvPresent.metadataNamespace } : {}),
            })),
            allowWithout: proxyProtocol.allowRequestsWithoutProxyProtocol ?? false,
          },
        }
      : {}),
    ...(options.tcpStats ? { tcpStats: true } : {}),
    ...(options.perConnectionBufferLimitBytes !== undefined
      ? { perConnectionBufferLimitBytes: options.perConnectionBufferLimitBytes }
      : {}),
    ...(options.socketOptions?.length
      ? {
          socketOptions: options.socketOptions.map((o) => ({
            ...(o.description !== undefined ? { description: o.description } : {}),
            level: o.level,
            name: o.name,
            value:
              o.intValue !== undefined
                ? { kind: 'int' as const, int: o.intValue }
                : { kind: 'buf' as const, base64: o.bufValue! },
            ...(o.state ? { state: o.state } : {}),
          })),
        }
      : {}),
    ...(options.connectionBalanceConfig ? { exactBalance: true } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
