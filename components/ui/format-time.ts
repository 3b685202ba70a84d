import { format, formatDistanceStrict, isToday } from 'date-fns';

/** "14:02" today, "3 Mar, 14:02" otherwise, in the viewer's zone. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return isToday(date) ? format(date, 'HH:mm') : format(date, 'd MMM, HH:mm');
}

/** Full local date and time, for titles. */
export function formatExact(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : format(date, 'EEE d MMM yyyy, HH:mm:ss');
}

/**
 * "3 minutes ago" style distance from now, in whole units rounded down like formatSpan, so a call
 * shown as "waiting 2 minutes" was asked "2 minutes ago", not "3 minutes ago".
 */
export function formatAgo(iso: string, nowMs: number = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  if (nowMs - date.getTime() < 5_000) return 'just now';
  return formatDistanceStrict(date, new Date(nowMs), { addSuffix: true, roundingMethod: 'floor' });
}

/** A short date for lists: "14:02" today, "3 Dec" this year, "3 Dec 2025" before. */
export function formatShortDate(iso: string, nowMs: number = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  if (isToday(date)) return format(date, 'HH:mm');
  return date.getFullYear() === new Date(nowMs).getFullYear() ? format(date, 'd MMM') : format(date, 'd MMM yyyy');
}

/**
 * Full local date and time with the zone, for audit titles: "Mon 3 Mar 2025, 14:02:05 GMT+01:00
 * (Europe/Berlin)" — the offset always, the zone's name where the runtime knows it.
 */
export function formatExactWithZone(iso: string, timeZone: string | null = Intl.DateTimeFormat().resolvedOptions().timeZone ?? null): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const offset = format(date, 'xxx');
  return `${format(date, 'EEE d MMM yyyy, HH:mm:ss')} GMT${offset === 'Z' ? '+00:00' : offset}${timeZone ? ` (${timeZone})` : ''}`;
}

/**
 * The span between two instants in words, rounded down ("3 hours", "20 minutes", "45 seconds"),
 * for "waiting 3 hours" / "due in 20 minutes" (date-fns formatDistanceStrict, floor rounding).
 */
export function formatSpan(fromMs: number, toMs: number): string {
  return formatDistanceStrict(new Date(fromMs), new Date(toMs), { roundingMethod: 'floor' });
}

/** Whether a call is overdue at `nowMs`: its `overdueAt` (ISO 8601; null: never overdue) has passed. */
export function isOverdue(overdueAt: string | null, nowMs: number): boolean {
  if (!overdueAt) return false;
  const at = new Date(overdueAt).getTime();
  return !Number.isNaN(at) && at <= nowMs;
}
