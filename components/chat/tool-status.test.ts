import { describe, expect, it } from 'vitest';
import { resultLine } from './tool-status';

describe('resultLine', () => {
  it("shows a sub-agent's answer (a delegation result `{ text }`) as its text, not as a field `text: …` (issue 30, item 9 Wording)", () => {
    expect(resultLine({ text: 'User 12345 is Ada Lovelace (ada@example.com).' })).toBe('User 12345 is Ada Lovelace (ada@example.com).');
  });

  it("keeps a result's message, and summarises other values readably", () => {
    expect(resultLine({ deleted: true, message: 'Record rec-1 was deleted.' })).toBe('Record rec-1 was deleted.');
    expect(resultLine({ text: 'a', extra: 1 })).toBe('text: a, extra: 1');
    expect(resultLine({ found: false })).toBe('found: no');
  });
});
