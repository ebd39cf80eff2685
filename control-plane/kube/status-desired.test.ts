import type { Diagnostic } from '../../compiler/diagnostics.js';
import { desiredStatuses, statusHolds, targetKey, withStatus, type StatusTarget } from './status-desired.js';

const vs: StatusTarget = {
  apiVersion: 'gateway.solo.io/v1',
  kind: 'VirtualService',
  namespace: 'shop',
  name: 'cart',
  generation: 4,
};
const us: StatusTarget = {
  apiVersion: 'gloo.solo.io/v1',
  kind: 'Upstream',
  namespace: 'shop',
  name: 'pay',
  generation: 2,
};
const rt: StatusTarget = {
  apiVersion: 'gateway.gateway.example/v1',
  kind: 'RouteTable',
  namespace: 'shop',
  name: 'r',
  generation: 1,
};

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
    const statuses = desiredStatuses(
      [vs, us, rt],
      [error, { ...error, severity: 'warning', message: 'also odd' }, warning],
    );
    expect(statuses.get(targetKey(vs))).toEqual({
      state: 'Rejected',
      reason:
        'error[resolve]: VirtualService shop/cart: spec.virtualHost.routes[0].routeAction.single.upstream: Upstream shop/nowhere not found — define it',
      reportedBy: 'sluice',
      observedGeneration: 4,
    });
    expect(statuses.get(targetKey(us))).toEqual({
      state: 'Warning',
      reason: 'warning[resolve]: Upstream shop/pay: spec.x: odd',
      reportedBy: 'sluice',
      observedGeneration: 2,
    });
    // Accepted has no reason, as solo-kit leaves it empty.
    expect(statuses.get(targetKey(rt))).toEqual({ state: 'Accepted', reportedBy: 'sluice', observedGeneration: 1 });
  });

  test('a diagnostic naming no resource gives no status', () => {
    const statuses = desiredStatuses([vs], [{ stage: 'verify', message: 'the output as a whole is wrong' }]);
    expect(statuses.get(targetKey(vs))!.state).toBe('Accepted');
  });

  test("this install's entry is compared and replaced; other reporters' entries and fields are kept", () => {
    const desired = desiredStatuses([vs], [error]).get(targetKey(vs))!;
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
