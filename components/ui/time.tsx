'use client';

import { format, formatDistanceToNowStrict, isToday } from 'date-fns';
import { useSyncExternalStore } from 'react';

const noop = () => () => {};

/**
 * True once the component runs in the browser after hydration. Times are shown in the viewer's
 * time zone, which the server does not know, so they render only on the client.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noop, () => true, () => false);
}

// One shared clock for every relative time on the page, ticking every 15 s.
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribeClock(listener: () => void) {
  listeners.add(listener);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, 15_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** Milliseconds since the epoch, refreshed every 15 s; null during server rendering. */
export function useNow(): number | null {
  return useSyncExternalStore(subscribeClock, () => now, () => null);
}

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

/** "3 s ago" style distance from now. */
export function formatAgo(iso: string, nowMs: number = Date.now()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  if (nowMs - date.getTime() < 5_000) return 'just now';
  return formatDistanceToNowStrict(date, { addSuffix: true });
}

/** A clock time ("14:02") with the exact time on hover. */
export function LocalTime({ iso, className }: { iso: string; className?: string }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={iso} title={hydrated ? formatExact(iso) : undefined} className={className}>
      {hydrated ? formatClock(iso) : ''}
    </time>
  );
}

/** A relative age ("5 minutes ago") that keeps itself current, exact time on hover. */
export function RelativeTime({ iso, className }: { iso: string; className?: string }) {
  const nowMs = useNow();
  return (
    <time dateTime={iso} title={nowMs === null ? undefined : formatExact(iso)} className={className}>
      {nowMs === null ? '' : formatAgo(iso, nowMs)}
    </time>
  );
}
