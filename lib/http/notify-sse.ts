import 'server-only';
import { KEEPALIVE_COMMENT, KEEPALIVE_MS } from './keep-alive';
import { SSE_HEADERS } from './sse';
import { acquireStreamSlot } from './stream-slots';


/**
 * A Server-Sent Events response that sends `data: <event>` each time `subscribe`'s callback fires
 * (at most once per `debounceMs`, and at most `debounceMs` after a change), with keep-alive
 * comments, until the client goes away.
 *
 * @param input.request the incoming request (its abort ends the stream)
 * @param input.actorId who listens; holds one of their live-stream slots while open
 * @param input.event the JSON text sent per notice, e.g. `{"type":"changed"}`
 * @param input.debounceMs how long notices are gathered into one after the first, in ms
 * @param input.subscribe starts listening; calls `notify` on each change; returns the unsubscribers
 * @param input.keepAliveMs how often a keep-alive comment is sent, in ms (default KEEPALIVE_MS, keep-alive.ts)
 * @throws ApiError 429 TOO_MANY_STREAMS (acquireStreamSlot)
 */
export function noticeStreamResponse(input: {
  request: Request;
  actorId: string;
  event: string;
  debounceMs: number;
  subscribe: (notify: () => void) => Promise<(() => void)[]>;
  keepAliveMs?: number;
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
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      try {
        unsubscribers = await input.subscribe(() => {
          // Notices within debounceMs of the first become one, but are never postponed further: a run
          // that writes events all the time (a streaming continuation) must not hold the notice back
          // until it has finished.
          timer ??= setTimeout(() => {
            timer = undefined;
            send(`data: ${input.event}\n\n`);
          }, input.debounceMs);
        });
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
      send(': connected\n\n');
      keepalive = setInterval(() => send(KEEPALIVE_COMMENT), input.keepAliveMs ?? KEEPALIVE_MS);
      input.request.signal.addEventListener('abort', () => {
        close();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
    },
    cancel: close,
  });
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', ...SSE_HEADERS, connection: 'keep-alive' },
  });
}
