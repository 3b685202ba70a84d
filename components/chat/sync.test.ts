import { describe, expect, it } from 'vitest';
import { isBrokenStream, serverIsAhead, toFriendly } from './sync';
import type { ChatMessage } from './types';

const text = (id: string, role: 'user' | 'assistant', value: string) => ({ id, role, parts: [{ type: 'text', text: value }] }) as unknown as ChatMessage;
const withCard = (id: string, card: Record<string, unknown>) =>
  ({ id, role: 'assistant', parts: [{ type: 'data-tool-call-approval', id: card.toolCallId, data: { toolName: 'delete-record', args: {}, ...card } }] }) as unknown as ChatMessage;

describe('serverIsAhead', () => {
  const asked = text('u1', 'user', 'delete record rec-42');

  it('is true when the server has more messages, false when it has fewer (a late refresh never takes back what streamed)', () => {
    const mine = [asked, text('a1', 'assistant', 'Done.')];
    expect(serverIsAhead([asked], mine)).toBe(true);
    expect(serverIsAhead(mine, [asked])).toBe(false);
    expect(serverIsAhead(mine, mine)).toBe(false);
  });

  it('is true when a card waiting here was decided there', () => {
    const waiting = [asked, withCard('a1', { toolCallId: 'call_1' })];
    const decided = [asked, withCard('a1', { toolCallId: 'call_1', resumed: true })];
    expect(serverIsAhead(waiting, decided)).toBe(true);
    expect(serverIsAhead(decided, waiting)).toBe(false);
  });

  it("is true when a waiting card's deadline was set or moved there, or a quorum counted another approval", () => {
    const plain = [asked, withCard('a1', { toolCallId: 'call_1' })];
    const due = [asked, withCard('a1', { toolCallId: 'call_1', deadline: { at: '2026-12-01T20:00:00.000Z', onTimeout: 'decline' } })];
    const moved = [asked, withCard('a1', { toolCallId: 'call_1', deadline: { at: '2026-12-01T21:00:00.000Z', onTimeout: 'decline' } })];
    expect(serverIsAhead(plain, due)).toBe(true);
    expect(serverIsAhead(due, moved)).toBe(true);
    expect(serverIsAhead(due, due)).toBe(false);
    const one = [asked, withCard('a1', { toolCallId: 'call_1', approvals: 1, quorum: 2 })];
    const none = [asked, withCard('a1', { toolCallId: 'call_1', approvals: 0, quorum: 2 })];
    expect(serverIsAhead(none, one)).toBe(true);
    expect(serverIsAhead(one, none)).toBe(false);
  });

  it('is true when the last message grew there (more parts or longer text), not when another message is last', () => {
    expect(serverIsAhead([asked, text('a1', 'assistant', 'Del')], [asked, text('a1', 'assistant', 'Deleted.')])).toBe(true);
    expect(serverIsAhead([asked, text('a1', 'assistant', 'Deleted.')], [asked, text('a1', 'assistant', 'Del')])).toBe(false);
    expect(serverIsAhead([asked, text('a1', 'assistant', 'Del')], [asked, text('a2', 'assistant', 'Deleted.')])).toBe(false);
  });
});

describe('isBrokenStream', () => {
  it('is a failed fetch or read, never an answer of the API', () => {
    expect(isBrokenStream(new TypeError('Failed to fetch'))).toBe(true);
    expect(isBrokenStream(new Error('network error'))).toBe(true);
    expect(isBrokenStream(new Error('terminated'))).toBe(true);
    expect(isBrokenStream(new Error(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Too many requests.' } })))).toBe(false);
    expect(isBrokenStream(new Error('The model refused the request.'))).toBe(false);
  });
});

describe('toFriendly', () => {
  it('points an ALREADY_DECIDED at the card, naming whose decision it shows', () => {
    const decided = (by: string) => new Error(JSON.stringify({ error: { code: 'ALREADY_DECIDED', message: 'Already decided.', details: { decidedBy: by } } }));
    expect(toFriendly(decided('user-ada'), {}, 'user-ada')).toMatchObject({ code: 'ALREADY_DECIDED', next: 'The card now shows your decision.' });
    expect(toFriendly(decided('user-rita'), {}, 'user-ada')).toMatchObject({ code: 'ALREADY_DECIDED', next: 'The card now shows their decision.' });
  });

  it("shows a stream's sentence as it is, but never markup, JSON or a failed fetch", () => {
    expect(toFriendly(new Error('The tool failed: timeout.'), {}, 'user-ada')).toMatchObject({ code: 'STREAM_ERROR', message: 'The tool failed: timeout.' });
    for (const error of [new Error('<html>502</html>'), new Error('{"oops":1}'), new TypeError('Failed to fetch')]) {
      expect(toFriendly(error, {}, 'user-ada').code, error.message).not.toBe('STREAM_ERROR');
    }
  });
});
