import { KnownVersions } from './known.js';
import type { Resource } from '../cache/snapshot.js';

const resource = (name: string, version: string): Resource => ({ name, version, value: new Uint8Array() });

test('shares a type map until its first change of its own, then copies it; the shared map is never written', () => {
  const type = new Map([
    ['a', resource('a', '1')],
    ['b', resource('b', '2')],
  ]);
  const known = new KnownVersions([['stale', '0']]);
  known.share(type);
  expect([known.get('a'), known.has('stale'), known.size, [...known.keys()]]).toEqual(['1', false, 2, ['a', 'b']]);
  known.set('c', '3');
  known.delete('a');
  expect([known.get('a'), known.get('b'), known.get('c'), known.size]).toEqual([undefined, '2', '3', 2]);
  expect([...type.keys()]).toEqual(['a', 'b']);
  // Deleting what it does not have copies nothing and changes nothing.
  known.share(type);
  known.delete('zzz');
  expect(known.size).toBe(2);
});
