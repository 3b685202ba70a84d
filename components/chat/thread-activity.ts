'use client';

import { useEffect, useRef, useState } from 'react';

/** Wait before opening the activity feed again after the server refused it (e.g. 404, 429), in ms. */
const FEED_RETRY_MS = 5_000;

/**
 * Listens to `/api/chat/{id}/events` (SSE: the thread changed elsewhere) and calls `onActivity`.
 * The server answers 404 until the thread exists, so the feed opens only once `exists`; a refused
 * feed (EventSource gives up on an HTTP error) is opened again after FEED_RETRY_MS.
 *
 * The feed is opened with `?since=<version>`, the thread's version the page was rendered at (the
 * newest `version` given): once the server listens, it compares and sends an event at once when the
 * thread changed meanwhile, so a decision made between the page's render and the feed's connection
 * is not missed. A reconnect of the browser's own sends the version the feed last said instead
 * (`Last-Event-ID`), with the same effect.
 *
 * @param version the thread's version of the page's snapshot (lib/store/thread-version.ts), or null
 *   when the page had none (a new chat: its own stream is its snapshot)
 * @returns whether the feed is connected (callers fall back to polling when it is not)
 */
export function useThreadActivity(threadId: string, exists: boolean, version: string | null, onActivity: () => void): boolean {
  const [connected, setConnected] = useState(false);
  const callback = useRef(onActivity);
  callback.current = onActivity;
  const snapshot = useRef(version);
  snapshot.current = version;
  useEffect(() => {
    if (!exists) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      const since = snapshot.current ? `?since=${encodeURIComponent(snapshot.current)}` : '';
      source = new EventSource(`/api/chat/${encodeURIComponent(threadId)}/events${since}`);
      source.onopen = () => setConnected(true);
      source.onmessage = () => callback.current();
      source.onerror = () => {
        const state = source?.readyState;
        setConnected(state === EventSource.OPEN);
        if (state === EventSource.CLOSED) retry = setTimeout(open, FEED_RETRY_MS);
      };
    };
    open();
    return () => {
      clearTimeout(retry);
      source?.close();
      setConnected(false);
    };
  }, [threadId, exists]);
  return connected;
}
