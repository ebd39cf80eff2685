/**
 * The API server double (harness/kube-apiserver.ts) as the real
 * @kubernetes/client-node sees it: discovery, paged and selected lists,
 * watches from a resourceVersion with bookmarks, timeouts and 410 Gone,
 * optimistic concurrency, generation, the status subresource, patches and
 * Leases. The provider's tests rely on each of these behaviours.
 */
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { KubeApiServer, type ResourceType } from '../../harness/kube-apiserver.js';

const VIRTUAL_SERVICES: ResourceType = {
  group: 'gateway.solo.io',
  version: 'v1',
  plural: 'virtualservices',
  kind: 'VirtualService',
  namespaced: true,
  status: true,
};
const vs = (name: string, domains: string[] = ['a.example'], namespace = 'web') => ({
  apiVersion: 'gateway.solo.io/v1',
  kind: 'VirtualService',
  metadata: { name, namespace },
  spec: { virtualHost: { domains } },
});
const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'web', labels },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});
const group = { group: 'gateway.solo.io', version: 'v1', plural: 'virtualservices' };

let double: KubeApiServer;
let config: KubeConfig;
let custom: CustomObjectsApi;
let core: CoreV1Api;

beforeEach(async () => {
  double = await KubeApiServer.start({ types: [VIRTUAL_SERVICES] });
  config = double.kubeConfig();
  custom = config.makeApiClient(CustomObjectsApi);
  core = config.makeApiClient(CoreV1Api);
});
afterEach(() => double.close());

async function failure(promise: Promise<unknown>): Promise<{ code: number; body: any }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) {
      return { code: error.code, body: typeof error.body === 'string' ? JSON.parse(error.body) : error.body };
    }
    throw error;
  }
  throw new Error('the request succeeded');
}

/** Events of one watch, awaited in order. */
function watchEvents(path: string, query: Record<string, string | number | boolean>) {
  const events: { type: string; object: any }[] = [];
  const waiters: (() => void)[] = [];
  let ended: unknown = false;
  const watching = new Watch(config).watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object });
      waiters.splice(0).forEach((w) => w());
    },
    (error) => {
      ended = error ?? true;
      waiters.splice(0).forEach((w) => w());
    },
  );
  return {
    events,
    get ended() {
      return ended;
    },
    async until(done: () => boolean): Promise<void> {
      while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    async stop() {
      (await watching).abort();
    },
  };
}

test('discovery lets KubernetesObjectApi create, read and list a custom kind; an absent kind is 404', async () => {
  const objects = KubernetesObjectApi.makeApiClient(config);
  const created: any = await objects.create(vs('shop'));
  expect(created.metadata?.resourceVersion).toBe(String(double.store.resourceVersion));
  expect(created.metadata?.generation).toBe(1);
  const read = await objects.read({
    apiVersion: 'gateway.solo.io/v1',
    kind: 'VirtualService',
    metadata: { name: 'shop', namespace: 'web' },
  });
  expect((read as any).spec.virtualHost.domains).toEqual(['a.example']);
  const list = await objects.list('gateway.solo.io/v1', 'VirtualService', 'web');
  expect(list.items.map((i) => i.metadata?.name)).toEqual(['shop']);
  expect(
    (await failure(custom.listClusterCustomObject({ group: 'gateway.solo.io', version: 'v1', plural: 'gateways' })))
      .code,
  ).toBe(404);
  expect(
    (await failure(custom.listClusterCustomObject({ group: 'sluice.example', version: 'v1', plural: 'upstreams' })))
      .code,
  ).toBe(404);
  const duplicate = await failure(objects.create(vs('shop')));
  expect(duplicate.code).toBe(409);
  expect(duplicate.body.reason).toBe('AlreadyExists');
});

test('a paged list is consistent at its first page, and a continue token compaction passed is 410 Expired', async () => {
  for (let i = 0; i < 5; i++) double.put(vs(`vs-${i}`));
  const first: any = await custom.listClusterCustomObject({ ...group, limit: 2 });
  expect(first.items.map((i: any) => i.metadata.name)).toEqual(['vs-0', 'vs-1']);
  expect(first.metadata.remainingItemCount).toBe(3);
  // A write between pages does not show in the rest of this list.
  double.remove('gateway.solo.io/v1', 'VirtualService', 'web', 'vs-3');
  double.put(vs('vs-5'));
  const second: any = await custom.listClusterCustomObject({ ...group, limit: 2, _continue: first.metadata.continue });
  const third: any = await custom.listClusterCustomObject({ ...group, limit: 2, _continue: second.metadata.continue });
  expect([...second.items, ...third.items].map((i: any) => i.metadata.name)).toEqual(['vs-2', 'vs-3', 'vs-4']);
  expect(third.metadata.continue).toBeUndefined();
  expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  const fresh: any = await custom.listClusterCustomObject({ ...group, limit: 2 });
  double.put(vs('vs-6'));
  double.compact();
  const expired = await failure(
    custom.listClusterCustomObject({ ...group, limit: 2, _continue: fresh.metadata.continue }),
  );
  expect(expired.code).toBe(410);
  expect(expired.body.reason).toBe('Expired');
});

test('label and field selectors filter lists', async () => {
  double.put(pod('a', { app: 'shop', track: 'stable' }));
  double.put(pod('b', { app: 'shop', track: 'canary' }));
  double.put(pod('c', { app: 'cart' }));
  const names = async (labelSelector?: string, fieldSelector?: string) =>
    (await core.listNamespacedPod({ namespace: 'web', labelSelector, fieldSelector })).items.map(
      (p) => p.metadata?.name,
    );
  expect(await names('app=shop')).toEqual(['a', 'b']);
  expect(await names('app=shop,track!=canary')).toEqual(['a']);
  expect(await names('track in (canary,beta)')).toEqual(['b']);
  expect(await names('!track')).toEqual(['c']);
  expect(await names(undefined, 'metadata.name=c')).toEqual(['c']);
  expect((await failure(core.listNamespacedPod({ namespace: 'web', labelSelector: 'app in shop' }))).code).toBe(400);
});

test('update: a stale resourceVersion is 409 Conflict, generation counts spec changes only, a no-op writes nothing', async () => {
  const created: any = double.put(vs('shop'));
  const edited: any = await custom.replaceNamespacedCustomObject({
    ...group,
    namespace: 'web',
    name: 'shop',
    body: { ...created, spec: { virtualHost: { domains: ['b.example'] } } },
  });
  expect(edited.metadata.generation).toBe(2);
  const conflict = await failure(
    custom.replaceNamespacedCustomObject({ ...group, namespace: 'web', name: 'shop', body: created }),
  );
  expect(conflict.code).toBe(409);
  expect(conflict.body.reason).toBe('Conflict');
  const unconditional = await failure(
    custom.replaceNamespacedCustomObject({
      ...group,
      namespace: 'web',
      name: 'shop',
      body: { ...edited, metadata: { ...edited.metadata, resourceVersion: undefined } },
    }),
  );
  expect(unconditional.code).toBe(422);
  const labelled: any = await custom.replaceNamespacedCustomObject({
    ...group,
    namespace: 'web',
    name: 'shop',
    body: { ...edited, metadata: { ...edited.metadata, labels: { team: 'web' } } },
  });
  expect(labelled.metadata.generation).toBe(2);
  expect(Number(labelled.metadata.resourceVersion)).toBeGreaterThan(Number(edited.metadata.resourceVersion));
  const same: any = await custom.replaceNamespacedCustomObject({
    ...group,
    namespace: 'web',
    name: 'shop',
    body: labelled,
  });
  expect(same.metadata.resourceVersion).toBe(labelled.metadata.resourceVersion);
});

test('the status subresource: the main endpoint ignores status, /status changes status only', async () => {
  const created: any = await custom.createNamespacedCustomObject({
    ...group,
    namespace: 'web',
    body: { ...vs('shop'), status: { statuses: { forged: { state: 'Accepted' } } } },
  });
  expect(created.status).toBeUndefined();
  const status = { statuses: { 'sluice-system': { state: 'Accepted', observedGeneration: 1 } } };
  const withStatus: any = await custom.replaceNamespacedCustomObjectStatus({
    ...group,
    namespace: 'web',
    name: 'shop',
    body: { ...created, spec: { virtualHost: { domains: ['ignored.example'] } }, status },
  });
  expect(withStatus.status).toEqual(status);
  expect(withStatus.spec.virtualHost.domains).toEqual(['a.example']);
  expect(withStatus.metadata.generation).toBe(1);
  const specEdit: any = await custom.replaceNamespacedCustomObject({
    ...group,
    namespace: 'web',
    name: 'shop',
    body: { ...withStatus, spec: { virtualHost: { domains: ['b.example'] } }, status: { statuses: {} } },
  });
  expect(specEdit.status).toEqual(status);
  expect(specEdit.metadata.generation).toBe(2);
  const patched: any = await custom.patchNamespacedCustomObjectStatus(
    {
      ...group,
      namespace: 'web',
      name: 'shop',
      body: { status: { statuses: { 'sluice-system': { state: 'Rejected' } } } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  expect(patched.status.statuses['sluice-system']).toEqual({ state: 'Rejected', observedGeneration: 1 });
  expect(patched.metadata.generation).toBe(2);
});

test('merge patch and JSON patch; a failed JSON patch test is 422; delete; get of a deleted object is 404', async () => {
  double.put(vs('shop', ['a.example', 'b.example']));
  const merged: any = await custom.patchNamespacedCustomObject(
    { ...group, namespace: 'web', name: 'shop', body: { metadata: { labels: { tier: 'gold' } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  expect(merged.metadata.labels).toEqual({ tier: 'gold' });
  const patched: any = await custom.patchNamespacedCustomObject(
    {
      ...group,
      namespace: 'web',
      name: 'shop',
      body: [
        { op: 'test', path: '/spec/virtualHost/domains/0', value: 'a.example' },
        { op: 'remove', path: '/spec/virtualHost/domains/0' },
        { op: 'add', path: '/spec/virtualHost/domains/-', value: 'c.example' },
      ],
    },
    setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  );
  expect(patched.spec.virtualHost.domains).toEqual(['b.example', 'c.example']);
  expect(patched.metadata.generation).toBe(2);
  const failed = await failure(
    custom.patchNamespacedCustomObject(
      {
        ...group,
        namespace: 'web',
        name: 'shop',
        body: [{ op: 'test', path: '/spec/virtualHost/domains/0', value: 'x' }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    ),
  );
  expect(failed.code).toBe(422);
  const stale = await failure(
    custom.patchNamespacedCustomObject(
      {
        ...group,
        namespace: 'web',
        name: 'shop',
        body: { metadata: { resourceVersion: merged.metadata.resourceVersion } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    ),
  );
  expect(stale.code).toBe(409);
  await custom.deleteNamespacedCustomObject({ ...group, namespace: 'web', name: 'shop' });
  const gone = await failure(custom.getNamespacedCustomObject({ ...group, namespace: 'web', name: 'shop' }));
  expect(gone.code).toBe(404);
  expect(gone.body.reason).toBe('NotFound');
});

test('watch from a resourceVersion: the events after it, bookmarks when asked, selectors, and the end at timeoutSeconds', async () => {
  double.put(pod('a', { app: 'shop' }));
  const from = String(double.store.resourceVersion);
  double.put(pod('b', { app: 'shop' }));
  const watch = watchEvents('/api/v1/namespaces/web/pods', {
    resourceVersion: from,
    allowWatchBookmarks: true,
    labelSelector: 'app=shop',
    timeoutSeconds: 1,
  });
  await watch.until(() => watch.events.length === 1);
  expect(watch.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
  double.put(pod('a', { app: 'cart' })); // leaves the selector: DELETED for this watch
  double.put(pod('c', { app: 'other' })); // never matched: nothing
  double.bookmark();
  await watch.until(() => watch.events.length === 3);
  expect(watch.events[1]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
  expect(watch.events[2].type).toBe('BOOKMARK');
  expect(watch.events[2].object.metadata.resourceVersion).toBe(String(double.store.resourceVersion));
  await watch.until(() => watch.ended !== false);
  expect(watch.ended).toBe(true);
  expect(double.openWatches).toBe(0);
});

test('a watch from a resourceVersion compaction passed gets an ERROR event with Status 410 Gone', async () => {
  double.put(pod('a', { app: 'shop' }));
  const old = String(double.store.resourceVersion);
  double.put(pod('b', { app: 'shop' }));
  double.compact();
  const watch = watchEvents('/api/v1/pods', { resourceVersion: old });
  await watch.until(() => watch.ended !== false);
  expect(watch.events).toHaveLength(1);
  expect(watch.events[0].type).toBe('ERROR');
  expect(watch.events[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  expect(watch.events[0].object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
});

test("client-node's informer: resumes after a dropped watch, lists again after 410", async () => {
  double.put(pod('a', { app: 'shop' }));
  const informer = makeInformer(config, '/api/v1/namespaces/web/pods', () =>
    core.listNamespacedPod({ namespace: 'web' }),
  );
  const names = () =>
    informer
      .list('web')
      .map((p) => p.metadata?.name)
      .sort();
  const settled = async (expected: string[]) => {
    for (let i = 0; i < 200 && JSON.stringify(names()) !== JSON.stringify(expected); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(names()).toEqual(expected);
  };
  await informer.start();
  await settled(['a']);
  const lists = () =>
    double.requests.filter((r) => r.path === '/api/v1/namespaces/web/pods' && r.query.watch === undefined).length;
  expect(lists()).toBe(1);
  double.dropWatches();
  double.put(pod('b', { app: 'shop' }));
  await settled(['a', 'b']);
  expect(lists()).toBe(1);
  // Disconnected while the history is compacted: the resumed watch is told 410 and the informer lists again.
  for (let i = 0; i < 200 && double.openWatches === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  double.dropWatches();
  double.remove('v1', 'Pod', 'web', 'a');
  double.put(pod('c', { app: 'shop' }));
  double.compact();
  await settled(['b', 'c']);
  expect(lists()).toBe(2);
  await informer.stop();
});

test('Leases: create, a holder renews with its resourceVersion, a competing stale update is 409', async () => {
  const leases = config.makeApiClient(CoordinationV1Api);
  const lease = await leases.createNamespacedLease({
    namespace: 'sluice-system',
    body: { metadata: { name: 'sluice-status' }, spec: { holderIdentity: 'serve-a', leaseDurationSeconds: 15 } },
  });
  const renewed = await leases.replaceNamespacedLease({
    namespace: 'sluice-system',
    name: 'sluice-status',
    body: { ...lease, spec: { ...lease.spec, renewTime: new Date() } },
  });
  expect(renewed.spec?.holderIdentity).toBe('serve-a');
  const stale = await failure(
    leases.replaceNamespacedLease({
      namespace: 'sluice-system',
      name: 'sluice-status',
      body: { ...lease, spec: { ...lease.spec, holderIdentity: 'serve-b' } },
    }),
  );
  expect(stale.code).toBe(409);
  const read = await leases.readNamespacedLease({ namespace: 'sluice-system', name: 'sluice-status' });
  expect(read.spec?.holderIdentity).toBe('serve-a');
});
