'use client';

import { useEffect, useRef, useState } from 'react';

/** Wait before opening the activity feed again after the server refused it (e.g. 404, 429), in ms. */
const FEED_RETRY_MS = 5_000;

/**
 * Listens to `/api/chat/{id}/events` (SSE: the thread changed elsewhere) and calls `onActivity`.
 * The server answers 404 until the thread exists, so the feed opens only once `exists`; a refused
 * feed (EventSource gives up on an HTTP error) is opened again after FEED_RETRY_MS.
 * @returns whether the feed is connected (callers fall back to polling when it is not)
 */
export function useThreadActivity(threadId: string, exists: boolean, onActivity: () => void): boolean {
  const [connected, setConnected] = useState(false);
  const callback = useRef(onActivity);
  callback.current = onActivity;
  useEffect(() => {
    if (!exists) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const open = () => {
      source = new EventSource(`/api/chat/${encodeURIComponent(threadId)}/events`);
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
