import { describe, expect, it } from 'vitest';
import { toolResultText } from './tool-result';

describe('toolResultText', () => {
  it('reads a refusal from the first boolean field, with the tool’s own message', () => {
    expect(toolResultText({ output: { refunded: false, message: 'Refused: only $0 is left to refund on ord-1.' } })).toEqual({
      outcome: 'refused',
      text: 'Refused: only $0 is left to refund on ord-1.',
    });
    expect(toolResultText({ output: { deleted: false, id: 'rec-9', message: 'Record rec-9 does not exist.' } }).outcome).toBe('refused');
  });

  it('reads a success, and an output without a message as a summary', () => {
    expect(toolResultText({ output: { sent: true, id: 'x', message: 'Email “Hi” queued for a@example.com.' } })).toEqual({
      outcome: 'done',
      text: 'Email “Hi” queued for a@example.com.',
    });
    expect(toolResultText({ output: { city: 'Paris', temperature: 21 } }).text).toContain('Paris');
  });

  it('reads a thrown error as failed', () => {
    expect(toolResultText({ errorText: 'boom' })).toEqual({ outcome: 'failed', text: 'boom' });
  });
});
