import { describe, expect, it } from 'vitest';
import { MASK, redactArgs } from './redact';

describe('redactArgs', () => {
  it('masks the named fields only', () => {
    expect(redactArgs({ orderId: 'ord-1', amount: 250 }, ['amount'])).toEqual({ orderId: 'ord-1', amount: MASK });
  });
  it('masks every value of a tool marked sensitive as a whole, and non-object arguments entirely', () => {
    expect(redactArgs({ a: 1, b: { c: 2 } }, true)).toEqual({ a: MASK, b: MASK });
    expect(redactArgs('secret', ['x'])).toBe(MASK);
    expect(redactArgs([1, 2], true)).toBe(MASK);
  });
  it('leaves the arguments of unmarked tools alone', () => {
    const args = { to: 'a@b.example' };
    expect(redactArgs(args, undefined)).toBe(args);
  });
});
