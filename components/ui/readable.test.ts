import { describe, expect, it } from 'vitest';
import { readableErrorText, summarizeValue } from './readable';

describe('summarizeValue', () => {
  it('summarises a result in words, never as JSON', () => {
    const text = summarizeValue({ found: true, customer: { id: 'cus-1', name: 'Grace' }, orders: [{ id: 'o1' }, { id: 'o2' }], tags: ['a', 'b'], note: null });
    expect(text).toBe('found: yes, customer: 2 fields, orders: 2 items, tags: a, b, note: none');
    expect(text).not.toMatch(/[{}[\]"]/);
  });

  it('handles scalars and lists at the top level, and cuts long text', () => {
    expect(summarizeValue(42)).toBe('42');
    expect(summarizeValue(['x', 1, false])).toBe('x, 1, no');
    expect(summarizeValue({ text: 'y'.repeat(300) }, 20)).toHaveLength(20);
  });
});

describe('readableErrorText', () => {
  it('keeps plain text as written', () => {
    expect(readableErrorText('Invalid input: expected string\n  → at customerId')).toBe('Invalid input: expected string\n  → at customerId');
  });

  it('turns JSON errors and issue lists into field: message lines', () => {
    expect(readableErrorText('{"error":{"code":"X","message":"Order not found"}}')).toBe('Order not found');
    expect(readableErrorText('[{"path":["amount"],"message":"Too big"},{"path":[],"message":"Bad"}]')).toBe('amount: Too big\nBad');
    expect(readableErrorText('{"status":500,"detail":{"reason":"down"}}')).toBe('status: 500\ndetail: reason: down');
  });

  it('says something when there is no text, and keeps text that only looks like JSON', () => {
    expect(readableErrorText(undefined)).toBe('The tool failed without saying why.');
    expect(readableErrorText('{not json')).toBe('{not json');
  });
});
