import type { Diagnostic } from '../../compiler/diagnostics.js';
import { desiredStatuses, statusHolds, withStatus, type StatusObject } from './status-desired.js';

const object = (apiVersion: string, kind: string, name: string, generation: number): [string, StatusObject] => [
  `${apiVersion}|${kind}|shop/${name}`,
  { apiVersion, kind, metadata: { name, namespace: 'shop', generation } },
];
const vs = object('gateway.solo.io/v1', 'VirtualService', 'cart', 4);
const us = object('gloo.solo.io/v1', 'Upstream', 'pay', 2);
const rt = object('gateway.gateway.example/v1', 'RouteTable', 'r', 1);
const objects = (...entries: [string, StatusObject][]) => new Map(entries);

const error: Diagnostic = {
  stage: 'resolve',
  file: '/cluster/cart.yaml',
  line: 12,
  resource: 'VirtualService shop/cart',
  field: 'spec.virtualHost.routes[0].routeAction.single.upstream',
  message: 'Upstream shop/nowhere not found',
  hint: 'define it',
};
const warning: Diagnostic = {
  ...error,
  resource: 'Upstream shop/pay',
  field: 'spec.x',
  message: 'odd',
  hint: undefined,
  severity: 'warning',
};

describe('desired statuses', () => {
  test('Rejected with the errors as the CLI words them (no file or line), Warning with the warnings, else Accepted', () => {
    const statuses = desiredStatuses(objects(vs, us, rt), [
      error,
      { ...error, severity: 'warning', message: 'also odd' },
      warning,
    ]);
    expect(statuses.get(vs[0])).toEqual({
      state: 'Rejected',
      reason:
        'error[resolve]: VirtualService shop/cart: spec.virtualHost.routes[0].routeAction.single.upstream: Upstream shop/nowhere not found — define it',
      reportedBy: 'sluice',
      observedGeneration: 4,
    });
    expect(statuses.get(us[0])).toEqual({
      state: 'Warning',
      reason: 'warning[resolve]: Upstream shop/pay: spec.x: odd',
      reportedBy: 'sluice',
      observedGeneration: 2,
    });
    // Accepted has no reason, as solo-kit leaves it empty.
    expect(statuses.get(rt[0])).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 1 });
  });

  test('a diagnostic naming no resource gives no status', () => {
    const statuses = desiredStatuses(objects(vs), [{ stage: 'verify', message: 'the output as a whole is wrong' }]);
    expect(statuses.get(vs[0])!.state).toBe('Accepted');
  });

  test("this install's entry is compared and replaced; other reporters' entries and fields are kept", () => {
    const desired = desiredStatuses(objects(vs), [error]).get(vs[0])!;
    const gloo = { state: 'Accepted', reportedBy: 'gateway' };
    const current = { statuses: { 'gloo-system': gloo }, other: 1 };
    expect(statusHolds(current, 'sluice-system', desired)).toBe(false);
    const next = withStatus(current, 'sluice-system', desired);
    expect(next).toEqual({ other: 1, statuses: { 'gloo-system': gloo, 'sluice-system': desired } });
    expect(statusHolds(next, 'sluice-system', desired)).toBe(true);
    expect(statusHolds(next, 'sluice-system', { ...desired, observedGeneration: 5 })).toBe(false);
    expect(statusHolds(next, 'gloo-system', desired)).toBe(false);
  });
});
