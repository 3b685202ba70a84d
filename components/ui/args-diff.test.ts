import { describe, expect, it } from 'vitest';
import { argsDiff } from './args-diff';

describe('argsDiff', () => {
  it('lists each changed, added and removed field, nested ones by path', () => {
    expect(argsDiff({ amount: 250, orderId: 'ord-1', note: 'x', address: { city: 'Oslo' } }, { amount: 100, orderId: 'ord-1', tag: 'y', address: { city: 'Bergen' } })).toEqual([
      { path: 'address.city', kind: 'changed', before: 'Oslo', after: 'Bergen' },
      { path: 'amount', kind: 'changed', before: 250, after: 100 },
      { path: 'note', kind: 'removed', before: 'x' },
      { path: 'tag', kind: 'added', after: 'y' },
    ]);
  });

  it('is empty when nothing changed, and compares non-objects as one value', () => {
    expect(argsDiff({ a: [1, 2] }, { a: [1, 2] })).toEqual([]);
    expect(argsDiff('a', 'b')).toEqual([{ path: '(value)', kind: 'changed', before: 'a', after: 'b' }]);
  });
});
