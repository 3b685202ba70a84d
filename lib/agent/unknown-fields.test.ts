import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { droppedFields } from './unknown-fields';

describe('droppedFields', () => {
  const refund = z.object({ orderId: z.string(), amount: z.number(), lines: z.array(z.object({ sku: z.string() })).optional() });

  it('names a field the schema stripped, however deep, in document order', () => {
    const sent = { orderId: 'o-1', ammount: 90, amount: 120, lines: [{ sku: 'a' }, { sku: 'b', note: 'x' }], 'with space': 1 };
    expect(droppedFields(sent, refund.parse(sent))).toEqual(['$.ammount', '$["with space"]', '$.lines[1].note']);
  });

  it('is empty when nothing was dropped, also when the schema added defaults or changed values', () => {
    const schema = z.object({ amount: z.coerce.number(), currency: z.string().default('EUR') });
    expect(droppedFields({ amount: '120' }, schema.parse({ amount: '120' }))).toEqual([]);
    expect(droppedFields('text', 'text')).toEqual([]);
    expect(droppedFields([1, 2], [1, 2])).toEqual([]);
  });

  it('stops at the limit', () => {
    const sent = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, i]));
    expect(droppedFields(sent, {}, 3)).toEqual(['$.f0', '$.f1', '$.f2']);
  });
});
