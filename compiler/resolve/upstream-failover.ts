/** Gloo's failover and the per-host fields of static hosts -> IR. */
import { asWarning, fieldError, type Diagnostic } from '../diagnostics.js';
import type { FailoverIR, HostIR } from '../ir/model.js';
import type { UpstreamSpec } from '../kinds/upstream.js';
import type { LbEndpointSpec } from '../kinds/upstream-failover.js';
import type { ResourceIndex } from './index.js';

type FailoverSpec = NonNullable<UpstreamSpec['failover']>;
/** What a host's health check config changes: a port of 0 and an empty hostname are Gloo's "unset". */
export function hostHealthCheck(spec: { portValue?: number; hostname?: string } | undefined): HostIR['healthCheck'] {
  const check = {
    ...(spec?.portValue ? { port: spec.portValue } : {}),
    ...(spec?.hostname ? { hostname: spec.hostname } : {}),
  };
  return Object.keys(check).length > 0 ? check : undefined;
}

function host(e: LbEndpointSpec): HostIR {
  const healthCheck = hostHealthCheck(e.healthCheckConfig);
  return {
    address: e.address,
    port: e.port,
    ...(e.loadBalancingWeight !== undefined ? { weight: e.loadBalancingWeight } : {}),
    ...(healthCheck ? { healthCheck } : {}),
  };
}

export function failoverOf(spec: FailoverSpec): FailoverIR {
  return {
    priorities: (spec.prioritizedLocalities ?? []).map((p) =>
      p.localityEndpoints.map((l) => {
        const locality = Object.fromEntries(Object.entries(l.locality ?? {}).filter(([, v]) => v !== ''));
        return {
          ...(Object.keys(locality).length > 0 ? { locality } : {}),
          hosts: l.lbEndpoints.map(host),
        };
      }),
    ),
    ...(spec.policy?.overprovisioningFactor !== undefined
      ? { overprovisioningFactor: spec.policy.overprovisioningFactor }
      : {}),
  };
}

/** Failover on a kube Upstream (its endpoints are the Service's, served apart), and failover Envoy can never use (no health information). */
export function failoverProblems(index: ResourceIndex): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const upstream of index.all('Upstream')) {
    const spec = upstream.spec as UpstreamSpec;
    if (!spec.failover) continue;
    const at = ['spec', 'failover'];
    if (spec.kube)
      out.push(
        fieldError(
          'resolve',
          upstream.origin,
          at,
          "failover on a kube Upstream is not built: its pods' endpoints are served on their own, without priorities",
          'use an Upstream with static hosts for the primary endpoints',
        ),
      );
    else if (!spec.healthChecks && !spec.outlierDetection)
      out.push(
        asWarning(
          fieldError(
            'resolve',
            upstream.origin,
            at,
            'Envoy fails over only from hosts it knows to be unhealthy, and this Upstream has neither healthChecks nor outlierDetection: the failover endpoints get no traffic',
            'add healthChecks (active) or outlierDetection (passive)',
          ),
        ),
      );
  }
  return out;
}
