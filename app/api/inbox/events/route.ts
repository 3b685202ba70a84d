import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { notifications } from '@/lib/store/listen';

/** How long change notices are gathered into one, in ms. */
const DEBOUNCE_MS = 150;
/** Keep-alive comment interval, in ms. */
const KEEPALIVE_MS = 15_000;

/**
 * Server-Sent Events for the approval inbox: `data: {"type":"changed"}` whenever a pending call is
 * created or changes status anywhere (any server), from PostgreSQL NOTIFY. The inbox then reloads
 * its list. Source: SPEC §7 `GET /api/inbox/events`.
 */
export const GET = withErrors(async (request: Request) => {
  await requireActor(request, ['reviewer', 'admin']);
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const close = () => {
    clearTimeout(timer);
    clearInterval(keepalive);
    unsubscribe?.();
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
      unsubscribe = await notifications().subscribe('countersign_pending', () => {
        clearTimeout(timer);
        timer = setTimeout(() => send('data: {"type":"changed"}\n\n'), DEBOUNCE_MS);
      });
      send(': connected\n\n');
      keepalive = setInterval(() => send(': keep-alive\n\n'), KEEPALIVE_MS);
      request.signal.addEventListener('abort', () => {
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
});
