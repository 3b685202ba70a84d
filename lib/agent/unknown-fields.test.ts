import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { droppedFields, fieldPaths, unknownTopLevelFields } from './unknown-fields';

describe('droppedFields', () => {
  const refund = z.object({ orderId: z.string(), amount: z.number(), lines: z.array(z.object({ sku: z.string() })).optional() });

  it('names fields the schema stripped, however deep, as zod unrecognized_keys issues, shallowest first', () => {
    const sent = { orderId: 'o-1', ammount: 90, amount: 120, lines: [{ sku: 'a' }, { sku: 'b', note: 'x' }], 'with space': 1 };
    const issues = droppedFields(sent, refund.parse(sent));
    expect(issues).toEqual([
      { code: 'unrecognized_keys', keys: ['ammount', 'with space'], path: [], message: 'Unrecognized keys: "ammount", "with space"' },
      { code: 'unrecognized_keys', keys: ['note'], path: ['lines', 1], message: 'Unrecognized key: "note"' },
    ]);
    expect(fieldPaths(issues)).toEqual(['$.ammount', '$["with space"]', '$.lines[1].note']);
  });

  it('is empty when nothing was dropped, also when the schema added defaults or changed values', () => {
    const schema = z.object({ amount: z.coerce.number(), currency: z.string().default('EUR') });
    expect(droppedFields({ amount: '120' }, schema.parse({ amount: '120' }))).toEqual([]);
    expect(droppedFields('text', 'text')).toEqual([]);
    expect(droppedFields([1, 2], [1, 2])).toEqual([]);
  });

  it('stops at the limit', () => {
    const sent = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, i]));
    expect(fieldPaths(droppedFields(sent, {}, 3))).toEqual(['$.f0', '$.f1', '$.f2']);
  });
});

describe('unknownTopLevelFields', () => {
  it('names the keys an object schema does not have, for a parse that failed', () => {
    const refund = z.object({ orderId: z.string(), amount: z.number() });
    expect(refund.safeParse({ orderId: 'o', ammount: 5 }).success).toBe(false);
    expect(fieldPaths(unknownTopLevelFields(refund, { orderId: 'o', ammount: 5 }))).toEqual(['$.ammount']);
    expect(unknownTopLevelFields(refund, { orderId: 'o' })).toEqual([]);
    expect(unknownTopLevelFields(z.string(), { a: 1 })).toEqual([]);
  });
});
