import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatAgo, formatClock, formatExact, formatExactWithZone, formatShortDate, formatSpan, isOverdue } from './format-time';

afterEach(() => {
  vi.useRealTimers();
});

// Local times, so the expectations hold in any time zone the tests run in.
const at = (year: number, month: number, day: number, hour: number, minute: number, second = 0) => new Date(year, month - 1, day, hour, minute, second).toISOString();

describe('formatClock', () => {
  it('shows only the time today and the date and time on other days', () => {
    vi.useFakeTimers({ now: new Date(2025, 2, 3, 18, 0) });
    expect(formatClock(at(2025, 3, 3, 14, 2))).toBe('14:02');
    expect(formatClock(at(2025, 3, 2, 9, 5))).toBe('2 Mar, 09:05');
    expect(formatClock('not a time')).toBe('');
  });
});

describe('formatExact', () => {
  it('shows the full local date and time, or the text itself when it is no time', () => {
    expect(formatExact(at(2025, 3, 3, 14, 2, 5))).toBe('Mon 3 Mar 2025, 14:02:05');
    expect(formatExact('soon')).toBe('soon');
  });
});

describe('formatExactWithZone', () => {
  it('adds the UTC offset of that instant and the zone name', () => {
    const iso = at(2025, 3, 3, 14, 2, 5);
    const minutes = -new Date(iso).getTimezoneOffset();
    const sign = minutes < 0 ? '-' : '+';
    const offset = `${sign}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
    expect(formatExactWithZone(iso, 'Europe/Somewhere')).toBe(`Mon 3 Mar 2025, 14:02:05 GMT${offset} (Europe/Somewhere)`);
    expect(formatExactWithZone(iso, null)).toBe(`Mon 3 Mar 2025, 14:02:05 GMT${offset}`);
    expect(formatExactWithZone('soon')).toBe('soon');
  });
});

describe('formatAgo', () => {
  it('says "just now" under 5 s, else the distance with a suffix', () => {
    const now = Date.parse('2025-03-03T14:02:00.000Z');
    expect(formatAgo('2025-03-03T14:01:56.000Z', now)).toBe('just now');
    expect(formatAgo('2025-03-03T14:01:55.000Z', now)).toBe('5 seconds ago');
    expect(formatAgo('2025-03-03T13:59:00.000Z', now)).toBe('3 minutes ago');
    expect(formatAgo('2025-03-01T14:02:00.000Z', now)).toBe('2 days ago');
    // Rounded down, as "waiting …" (formatSpan) is: 2 min 40 s is "2 minutes" in both.
    expect(formatAgo('2025-03-03T13:59:20.000Z', now)).toBe('2 minutes ago');
    expect(formatSpan(Date.parse('2025-03-03T13:59:20.000Z'), now)).toBe('2 minutes');
    expect(formatAgo('nonsense', now)).toBe('');
  });
});

describe('formatShortDate', () => {
  it('shows the time today, the day this year, and the year before', () => {
    vi.useFakeTimers({ now: new Date(2025, 2, 3, 18, 0) });
    const now = Date.now();
    expect(formatShortDate(at(2025, 3, 3, 14, 2), now)).toBe('14:02');
    expect(formatShortDate(at(2025, 1, 20, 9, 5), now)).toBe('20 Jan');
    expect(formatShortDate(at(2024, 12, 31, 9, 5), now)).toBe('31 Dec 2024');
    expect(formatShortDate('not a time', now)).toBe('');
  });
});

describe('formatSpan and isOverdue', () => {
  it('says a span in whole units, rounded down, and an overdue time once it passed', () => {
    const t = Date.UTC(2026, 0, 1);
    expect(formatSpan(t, t + 3 * 3_600_000 + 59 * 60_000)).toBe('3 hours');
    expect(formatSpan(t, t + 20 * 60_000 + 59_000)).toBe('20 minutes');
    expect(formatSpan(t, t + 25 * 3_600_000)).toBe('1 day');
    expect(formatSpan(t, t + 45_000)).toBe('45 seconds');
    expect(isOverdue(null, t)).toBe(false);
    expect(isOverdue(new Date(t).toISOString(), t)).toBe(true);
    expect(isOverdue(new Date(t + 1).toISOString(), t)).toBe(false);
    expect(isOverdue('not a time', t)).toBe(false);
  });
});
