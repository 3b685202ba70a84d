import 'server-only';

/** Keep-alive comment interval, in ms. */
const KEEPALIVE_MS = 15_000;

/**
 * A Server-Sent Events response that sends `data: <event>` each time `subscribe`'s callback fires
 * (at most once per `debounceMs`, and at most `debounceMs` after a change), with keep-alive
 * comments, until the client goes away.
 *
 * @param input.request the incoming request (its abort ends the stream)
 * @param input.event the JSON text sent per notice, e.g. `{"type":"changed"}`
 * @param input.debounceMs how long notices are gathered into one after the first, in ms
 * @param input.subscribe starts listening; calls `notify` on each change; returns the unsubscribers
 */
export function noticeStreamResponse(input: {
  request: Request;
  event: string;
  debounceMs: number;
  subscribe: (notify: () => void) => Promise<(() => void)[]>;
}): Response {
  const encoder = new TextEncoder();
  let unsubscribers: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const close = () => {
    clearTimeout(timer);
    clearInterval(keepalive);
    for (const unsubscribe of unsubscribers) unsubscribe();
    unsubscribers = [];
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
      unsubscribers = await input.subscribe(() => {
        // Notices within debounceMs of the first become one, but are never postponed further: a run
        // that writes events all the time (a streaming continuation) must not hold the notice back
        // until it has finished.
        timer ??= setTimeout(() => {
          timer = undefined;
          send(`data: ${input.event}\n\n`);
        }, input.debounceMs);
      });
      send(': connected\n\n');
      keepalive = setInterval(() => send(': keep-alive\n\n'), KEEPALIVE_MS);
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
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' },
  });
}
