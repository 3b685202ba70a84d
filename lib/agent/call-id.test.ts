import { describe, expect, it } from 'vitest';
import { callsAddressedBy, qualifiedCallId } from './call-id';

const row = (rootToolCallId: string, toolCallId: string) => ({ rootToolCallId, toolCallId });

describe('qualifiedCallId', () => {
  it('keeps a top-level call its own id and prefixes a sub-agent call with its delegation path', () => {
    expect(qualifiedCallId(null, 'call_1')).toBe('call_1');
    expect(qualifiedCallId('call_0', 'call_0')).toBe('call_0~call_0');
    expect(qualifiedCallId(qualifiedCallId('call_1', 'call_0'), 'call_1')).toBe('call_1~call_0~call_1');
  });
});

describe('callsAddressedBy', () => {
  // Two child runs whose model said call_0 / call_1 each, under delegations call_0 and call_1.
  const rows = [row('call_0~call_0', 'call_0'), row('call_0~call_1', 'call_1'), row('call_1~call_0', 'call_0'), row('call_1~call_1', 'call_1')];

  it('every call without an id', () => {
    expect(callsAddressedBy(rows, undefined)).toEqual(rows);
  });

  it('exactly the call with that qualified id', () => {
    expect(callsAddressedBy(rows, 'call_1~call_0')).toEqual([rows[2]]);
  });

  it('else every call with that own id, or below that delegation', () => {
    expect(callsAddressedBy(rows, 'call_0')).toEqual([rows[0], rows[1], rows[2]]);
    expect(callsAddressedBy([rows[2], rows[3]], 'call_1')).toEqual([rows[2], rows[3]]);
    expect(callsAddressedBy(rows, 'call_9')).toEqual([]);
  });

  it('a qualified id that names a call never falls through to other calls, e.g. to one with that own id', () => {
    const topLevel = row('call_0', 'call_0');
    expect(callsAddressedBy([topLevel, ...rows], 'call_0')).toEqual([topLevel]);
  });

  it('a prefix must end at a separator: call_1 is not below call_10', () => {
    expect(callsAddressedBy([row('call_10~call_0', 'call_0')], 'call_1')).toEqual([]);
  });
});
