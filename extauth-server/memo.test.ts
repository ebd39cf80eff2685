import { BoundedMemo } from './memo.js';

test('computes once per key, keeps at most max entries and evicts the oldest first', () => {
  const computed: string[] = [];
  const memo = new BoundedMemo<string, string | false>(3, (key) => {
    computed.push(key);
    return key === 'x' ? false : key.toUpperCase();
  });
  expect([memo.get('a'), memo.get('x'), memo.get('a'), memo.get('x')]).toEqual(['A', false, 'A', false]);
  expect(computed).toEqual(['a', 'x']);
  memo.get('b');
  memo.get('c'); // full at 3: 'a', the oldest, goes
  expect(memo.size).toBe(3);
  memo.get('x');
  memo.get('a');
  expect(computed).toEqual(['a', 'x', 'b', 'c', 'a']);
  expect(memo.size).toBe(3);
});
