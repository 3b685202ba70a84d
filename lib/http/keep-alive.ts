/**
 * Keep-alive for event streams (issue 30, item 4): a proxy with a 60 s idle timeout (nginx's and
 * most load balancers' default) cuts a response that sends nothing, e.g. a chat waiting on a model
 * that thinks, or a notice stream on a quiet thread. An SSE comment line is ignored by every SSE
 * parser (the AI SDK's `useChat` reads the UI message stream with eventsource-parser, which skips
 * comments; the seed framework's client reads only `data:` blocks), so it is safe in all of them.
 */

/** How long an event stream may send nothing before a keep-alive comment goes out, in ms. */
export const KEEPALIVE_MS = 15_000;

/** The SSE comment sent when a stream was idle for KEEPALIVE_MS. */
export const KEEPALIVE_COMMENT = ': keep-alive\n\n';

/**
 * `source` with a keep-alive comment whenever it sent nothing for `intervalMs`. Comments go only
 * between the source's chunks, so each chunk must end at an event's boundary (every stream of this
 * app enqueues whole `data: …\n\n` events). Cancelling the result cancels `source`; the timer stops
 * when either ends.
 *
 * @param source the response body, whole SSE events as bytes
 * @param intervalMs idle time before a comment, in ms (default KEEPALIVE_MS; tests shorten it)
 */
export function withKeepAlive(source: ReadableStream<Uint8Array>, intervalMs: number = KEEPALIVE_MS): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const comment = new TextEncoder().encode(KEEPALIVE_COMMENT);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let arm = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          try {
            controller.enqueue(comment);
            arm();
          } catch {
            // The stream was closed or cancelled meanwhile.
          }
        }, intervalMs);
      };
      arm();
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          clearTimeout(timer);
          controller.close();
          return;
        }
        controller.enqueue(value);
        arm();
      } catch (error) {
        clearTimeout(timer);
        controller.error(error);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
}

/**
 * `response` with `withKeepAlive` on its body (same status and headers).
 * @param intervalMs as withKeepAlive
 */
export function keepAliveResponse(response: Response, intervalMs?: number): Response {
  if (!response.body) return response;
  return new Response(withKeepAlive(response.body, intervalMs), { status: response.status, statusText: response.statusText, headers: response.headers });
}
