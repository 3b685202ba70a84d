import { describe, expect, it } from 'vitest';
import { checkToolDeadline, deadlineDeclineReason, escalationReason, spanInWords } from './deadline';

describe('deadline rules', () => {
  it('says the span in words, largest units first', () => {
    expect(spanInWords(4 * 3_600_000)).toBe('4 hours');
    expect(spanInWords(90 * 60_000)).toBe('1 hour 30 minutes');
    expect(spanInWords(10 * 60_000)).toBe('10 minutes');
    expect(spanInWords(3_000)).toBe('3 seconds');
    expect(spanInWords(2 * 86_400_000)).toBe('2 days');
    expect(spanInWords(61_000)).toBe('1 minute');
  });

  it('derives the decline reason the model reads from how long the call waited', () => {
    expect(deadlineDeclineReason(4 * 3_600_000)).toBe('No reviewer decided within 4 hours, so it was declined automatically.');
    expect(deadlineDeclineReason(8 * 3_600_000, true)).toMatch(/^No reviewer or admin decided within 8 hours \(escalated/);
    expect(escalationReason(3_600_000)).toBe('No reviewer decided within 1 hour; escalated to admins.');
  });

  it('refuses a deadline a tool cannot mean', () => {
    expect(() => checkToolDeadline('t', { afterMs: 500, action: 'decline' })).toThrow(/afterMs/);
    expect(() => checkToolDeadline('t', { afterMs: 1.5e3 + 0.5, action: 'decline' })).toThrow(/afterMs/);
    expect(() => checkToolDeadline('t', { afterMs: 5_000, action: 'archive' as never })).toThrow(/action/);
    expect(() => checkToolDeadline('t', { afterMs: 5_000, action: 'escalate' })).not.toThrow();
    expect(() => checkToolDeadline('t', undefined)).not.toThrow();
  });
});
