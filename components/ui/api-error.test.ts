import { describe, expect, it, vi, afterEach } from 'vitest';
import { friendlyError, parseApiError } from './api-error';

afterEach(() => {
  vi.useRealTimers();
});

describe('parseApiError', () => {
  it('reads { error: { code, message, details } }', () => {
    expect(parseApiError('{"error":{"code":"FOUR_EYES","message":"No.","details":{"a":1}}}')).toStrictEqual({ code: 'FOUR_EYES', message: 'No.', details: { a: 1 } });
    expect(parseApiError('{"error":{"message":"No code."}}')).toStrictEqual({ code: 'ERROR', message: 'No code.', details: undefined });
  });

  it('is null for anything else', () => {
    expect(parseApiError('<html>502</html>')).toBeNull();
    expect(parseApiError('{"error":"boom"}')).toBeNull();
    expect(parseApiError('{"error":{"code":"X"}}')).toBeNull();
    expect(parseApiError('null')).toBeNull();
  });
});

describe('friendlyError', () => {
  const people = { rita: { name: 'Rita Levi', email: null } };

  it('names who already decided, how, when and why', () => {
    vi.useFakeTimers({ now: new Date('2025-03-03T14:02:10.000Z') });
    const error = {
      code: 'ALREADY_DECIDED',
      message: 'x',
      details: { decidedBy: 'rita', status: 'declined', decidedAt: '2025-03-03T14:02:00.000Z', reason: 'wrong order' },
    };
    expect(friendlyError(error, people, 'ada')).toStrictEqual({
      code: 'ALREADY_DECIDED',
      message: 'Rita Levi already declined this 10 seconds ago (“wrong order”).',
      next: 'Refresh to see the outcome.',
      issues: [],
    });
    expect(friendlyError({ ...error, details: { decidedBy: 'rita', status: 'approved' } }, people, 'rita').message).toBe('You already approved this.');
    expect(friendlyError({ ...error, details: { decidedBy: 'rita', status: 'resumed' } }, people).message).toBe('Rita Levi already answered this.');
    expect(friendlyError({ ...error, details: {} }, people).message).toBe('This was already decided.');
  });

  it('gives each refusal a sentence and a next step', () => {
    expect(friendlyError({ code: 'FINGERPRINT_MISMATCH', message: 'x' }, people)).toMatchObject({
      message: 'The call changed since it was shown.',
      next: 'Refresh and look at it again before deciding.',
    });
    expect(friendlyError({ code: 'TOOL_CALL_NOT_SUSPENDED', message: 'x' }, people).message).toBe('This run is no longer waiting for a decision.');
    expect(friendlyError({ code: 'RATE_LIMITED', message: 'Too many requests; try again in 7 s.' }, people)).toMatchObject({
      message: 'Too many requests; try again in 7 s.',
      next: 'Wait a moment, then try again.',
    });
    expect(friendlyError({ code: 'INTERNAL', message: 'x' }, people).message).toBe('Something went wrong on our side.');
    expect(friendlyError({ code: 'SOMETHING_NEW', message: 'Server says no.' }, people)).toStrictEqual({
      code: 'SOMETHING_NEW',
      message: 'Server says no.',
      next: 'Try again, or refresh the page.',
      issues: [],
    });
    expect(friendlyError(null, people)).toMatchObject({ code: 'NETWORK', next: 'Check your connection and try again.' });
    // An edit refused by the rules of what it would run: the server's sentence names the rule; the call still waits.
    expect(friendlyError({ code: 'EDIT_NEEDS_APPROVAL', message: 'These changes need 2 different reviewers (rule “Very large refunds”).' }, people)).toMatchObject({
      message: 'These changes need 2 different reviewers (rule “Very large refunds”).',
      next: 'Approve it unchanged, or decline it with a reason saying what you would accept, so the assistant can ask again.',
    });
  });

  it('lists the issues of an invalid answer as "field: message" lines', () => {
    const error = {
      code: 'INVALID_RESUME_DATA',
      message: 'The answer does not match.',
      details: [{ path: ['city'], message: 'Required' }, { path: [], message: 'Too many keys' }, { nonsense: true }],
    };
    expect(friendlyError(error, people)).toStrictEqual({
      code: 'INVALID_RESUME_DATA',
      message: 'The answer does not match.',
      next: 'Fix the answer and submit again; the question is still open.',
      issues: ['city: Required', 'Too many keys'],
    });
  });
});
