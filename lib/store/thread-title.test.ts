import { describe, expect, it } from 'vitest';
import { TITLE_MAX_CHARS, titleFromRequest } from './thread-title';

describe('titleFromRequest', () => {
  it('collapses whitespace and newlines and trims', () => {
    expect(titleFromRequest('  delete\n\trecord   rec-42 \n')).toBe('delete record rec-42');
  });

  it('cuts a long request at a word boundary with an ellipsis, within the limit', () => {
    const title = titleFromRequest('refund order ord-1042 for 250 because the customer was charged twice and is unhappy about it');
    expect(title).toBe('refund order ord-1042 for 250 because the customer was…');
    expect(Array.from(title).length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
  });

  it('never splits a surrogate pair, and cuts words with no space inside', () => {
    const title = titleFromRequest('🙂'.repeat(100));
    expect(Array.from(title)).toHaveLength(TITLE_MAX_CHARS);
    expect(title.endsWith('🙂…')).toBe(true);
    expect(titleFromRequest('x'.repeat(200))).toBe(`${'x'.repeat(TITLE_MAX_CHARS - 1)}…`);
  });

  it('falls back to "New chat" for a request without visible text', () => {
    expect(titleFromRequest(' \n ')).toBe('New chat');
  });
});
