'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

/** Without the live feed, how often the list looks for new and decided calls, in ms. */
const REFRESH_MS = 5_000;

/**
 * Keeps the inbox's server-rendered list current: refreshes on every event of /api/inbox/events
 * (PostgreSQL NOTIFY, from any server), and polls every REFRESH_MS (and when the tab becomes
 * visible) only while that feed is down. Nothing is refreshed while the reviewer's own decision is
 * being sent, so the row they act on does not move under them.
 *
 * @param busy true while a decision, an answer or a bulk decision of this page is in flight
 */
export function useInboxRefresh(busy: boolean): void {
  const router = useRouter();
  const busyRef = useRef(false);
  busyRef.current = busy;
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource('/api/inbox/events');
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(source.readyState === EventSource.OPEN);
    source.onmessage = () => {
      if (!busyRef.current) router.refresh();
    };
    return () => source.close();
  }, [router]);
  useEffect(() => {
    if (busy || live) return;
    const refresh = () => {
      if (document.visibilityState === 'visible') router.refresh();
    };
    const timer = setInterval(refresh, REFRESH_MS);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [busy, live, router]);
}
