import 'server-only';
import { KEEPALIVE_COMMENT, KEEPALIVE_MS } from './keep-alive';
import { SSE_HEADERS } from './sse';
import { acquireStreamSlot } from './stream-slots';

/**
 * A Server-Sent Events response that sends `data: <event>` each time `subscribe`'s callback fires,
 * with keep-alive comments, until the client goes away. The first notice is sent at once; notices
 * that follow within `intervalMs` of a sent one become one event, sent when that interval ends (a
 * run that writes events all the time sends one event per interval, never none until it is done).
 *
 * Once the subscription listens, `catchUp` (when given) says whether something changed between the
 * client's snapshot and now: then the event is sent at once, so a change made while the client was
 * connecting (between a page's server render and its feed, or during a reconnect) is never missed.
 * Its `id` goes out as the SSE `id:` field, which the browser sends back as `Last-Event-ID` when it
 * reconnects.
 *
 * @param input.request the incoming request (its abort ends the stream)
 * @param input.actorId who listens; holds one of their live-stream slots while open
 * @param input.event the JSON text sent per notice, e.g. `{"type":"changed"}`
 * @param input.intervalMs the least time between two events, in ms
 * @param input.subscribe starts listening; calls `notify` on each change; returns the unsubscribers
 * @param input.keepAliveMs how often a keep-alive comment is sent, in ms (default KEEPALIVE_MS, keep-alive.ts)
 * @param input.catchUp reads the state now (after `subscribe` resolved): its version `id` (no line
 *   breaks) and whether it differs from the client's snapshot
 * @throws ApiError 429 TOO_MANY_STREAMS (acquireStreamSlot)
 */
export function noticeStreamResponse(input: {
  request: Request;
  actorId: string;
  event: string;
  intervalMs: number;
  subscribe: (notify: () => void) => Promise<(() => void)[]>;
  keepAliveMs?: number;
  catchUp?: () => Promise<{ id: string; changed: boolean }>;
}): Response {
  const release = acquireStreamSlot(input.actorId);
  const encoder = new TextEncoder();
  let unsubscribers: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const close = () => {
    closed = true;
    clearTimeout(timer);
    clearInterval(keepalive);
    for (const unsubscribe of unsubscribers) unsubscribe();
    unsubscribers = [];
    release();
  };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      // Whether a notice came while the interval after the last event runs (it is sent when it ends).
      let held = false;
      const sendEvent = () => {
        send(`data: ${input.event}\n\n`);
        timer = setTimeout(() => {
          timer = undefined;
          if (!held) return;
          held = false;
          sendEvent();
        }, input.intervalMs);
      };
      const notify = () => {
        if (timer) held = true;
        else sendEvent();
      };
      let ready = false;
      let early = false;
      try {
        // Notices that arrive before the stream says it is connected are sent after that.
        unsubscribers = await input.subscribe(() => (ready ? notify() : (early = true)));
      } catch (error) {
        close();
        controller.error(error);
        return;
      }
      // The client left while we subscribed: nothing else would undo it.
      if (closed || input.request.signal.aborted) {
        close();
        return;
      }
      input.request.signal.addEventListener('abort', () => {
        close();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
      send(': connected\n\n');
      let changed = false;
      if (input.catchUp) {
        try {
          const now = await input.catchUp();
          changed = now.changed;
          send(`id: ${now.id.replace(/[\r\n]/g, '')}\n\n`);
        } catch {
          // The state could not be read: the client re-reads, as after a change.
          changed = true;
        }
      }
      if (closed) return;
      ready = true;
      if (changed || early) notify();
      keepalive = setInterval(() => send(KEEPALIVE_COMMENT), input.keepAliveMs ?? KEEPALIVE_MS);
    },
    cancel: close,
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', ...SSE_HEADERS, connection: 'keep-alive' },
  });
}
