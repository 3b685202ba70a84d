import { describe, expect, it } from 'vitest';
import { markResponded, toolPartIdFor, type ChatMessage } from './types';

describe('toolPartIdFor', () => {
  it("finds a card's own tool part, or for a sub-agent's card the delegation whose id starts it", () => {
    expect(toolPartIdFor('call_a', ['call_a', 'call_b'])).toBe('call_a');
    expect(toolPartIdFor('call_b~call_x', ['call_a', 'call_b'])).toBe('call_b');
    expect(toolPartIdFor('call_b~call_x~call_y', ['call_b'])).toBe('call_b');
    expect(toolPartIdFor('call_bb~call_x', ['call_b'])).toBeUndefined();
    expect(toolPartIdFor('call_c', ['call_a'])).toBeUndefined();
  });

  it('prefers the longest delegation id when ids themselves contain the separator', () => {
    expect(toolPartIdFor('a~b~c', ['a', 'a~b'])).toBe('a~b');
  });
});

describe('markResponded', () => {
  it("marks the delegation's tool part for a sub-agent's card, so the continuation streams into that message", () => {
    const messages = [
      {
        id: 'm1',
        role: 'assistant',
        parts: [{ type: 'tool-agent-data-agent', toolCallId: 'call_d', state: 'input-available', input: {} }],
      },
      { id: 'm2', role: 'assistant', parts: [{ type: 'tool-delete-record', toolCallId: 'call_e', state: 'input-available', input: {} }] },
    ] as unknown as ChatMessage[];
    const marked = markResponded(messages, 'call_d~call_1', true);
    expect(marked[0].parts[0]).toMatchObject({ state: 'approval-responded', approval: { id: 'call_d', approved: true } });
    expect(marked[1]).toBe(messages[1]);
  });
});
