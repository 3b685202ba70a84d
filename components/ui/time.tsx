'use client';

import { useSyncExternalStore } from 'react';
import { formatAgo, formatClock, formatExact, formatExactWithZone, formatShortDate } from './format-time';
import { useHydrated } from './use-hydrated';

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

/** A short date for lists ("14:02" today, "3 Dec" otherwise), exact time on hover. */
export function ShortDate({ iso, className }: { iso: string; className?: string }) {
  const hydrated = useHydrated();
  return (
    <time dateTime={iso} title={hydrated ? formatExact(iso) : undefined} className={className}>
      {hydrated ? formatShortDate(iso) : ''}
    </time>
  );
}

/** A relative age ("5 minutes ago") with the absolute time and its zone on hover (audit). */
export function ZonedTime({ iso, className }: { iso: string; className?: string }) {
  const nowMs = useNow();
  return (
    <time dateTime={iso} title={nowMs === null ? undefined : formatExactWithZone(iso)} className={className}>
      {nowMs === null ? '' : formatAgo(iso, nowMs)}
    </time>
  );
}
