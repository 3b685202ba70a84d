import 'server-only';
import { securitySettings } from '@/lib/security/settings';
import { ApiError } from './errors';

/** Open live streams per person in this process. */
const open = new Map<string, number>();

/**
 * Takes one of the person's live-stream slots on this server (SSE_MAX_CONNECTIONS_PER_USER, default
 * 10): each open Server-Sent Events stream holds a socket, a NOTIFY listener and timers, so one
 * person may not hold unlimited ones. Counted per server process, where those resources live.
 *
 * @param actorId who opens the stream
 * @returns `release`, to call when the stream ends (calling it again does nothing)
 * @throws ApiError 429 TOO_MANY_STREAMS
 */
export function acquireStreamSlot(actorId: string): () => void {
  const held = open.get(actorId) ?? 0;
  const max = securitySettings().SSE_MAX_CONNECTIONS_PER_USER;
  if (held >= max) {
    throw new ApiError(429, 'TOO_MANY_STREAMS', `You have ${held} live connections open; close a tab and try again.`, {
      retryAfterSeconds: 5,
      max,
    });
  }
  open.set(actorId, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const now = (open.get(actorId) ?? 1) - 1;
    if (now > 0) open.set(actorId, now);
    else open.delete(actorId);
  };
}

/**
 * `stream`, releasing the slot once it ends, fails, is cancelled, or the request is aborted.
 * @param input.signal the request's abort signal
 */
export function releaseWhenDone<T>(input: { stream: ReadableStream<T>; release: () => void; signal: AbortSignal }): ReadableStream<T> {
  const reader = input.stream.getReader();
  input.signal.addEventListener('abort', input.release, { once: true });
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          input.release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        input.release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      input.release();
      await reader.cancel(reason);
    },
  });
}
