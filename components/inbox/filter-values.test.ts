import { describe, expect, it } from 'vitest';
import { unreadFiltersNote, withoutUnread } from './filter-values';

describe('the note about filters left out of a link', () => {
  it('names each filter by its label, and says how a date looks when a date was left out', () => {
    expect(unreadFiltersNote(['toolName'])).toBe('A filter in this link could not be read, so it is left out: tool.');
    expect(unreadFiltersNote(['from', 'agentId'])).toBe('Some filters in this link could not be read, so they are left out: from, agent. A date looks like 2026-11-30.');
  });

  it('says nothing for what is not a filter (a page cursor)', () => {
    expect(unreadFiltersNote(['cursor'])).toBeNull();
    expect(unreadFiltersNote([])).toBeNull();
    expect(unreadFiltersNote(['cursor', 'to'])).toBe('A filter in this link could not be read, so it is left out: until. A date looks like 2026-11-30.');
  });
});

describe('filters left out of a link', () => {
  it('are shown empty; names that are not filters change nothing', () => {
    expect(withoutUnread({ toolName: 'a\0', from: 'x', agentId: 'ops' }, ['toolName', 'from', 'cursor'])).toEqual({ toolName: '', from: '', agentId: 'ops' });
  });
});
