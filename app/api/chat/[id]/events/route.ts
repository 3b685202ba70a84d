import { requireActor } from '@/lib/auth/session';
import { ApiError, withErrors } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';
import { notifications } from '@/lib/store/listen';

type Params = { params: Promise<{ id: string }> };

/** How long activity notices are gathered into one, in ms. */
const DEBOUNCE_MS = 100;
/** Keep-alive comment interval, in ms. */
const KEEPALIVE_MS = 15_000;

/**
 * Server-Sent Events telling an open chat that its thread changed elsewhere (a reviewer decided,
 * a run continued on another server): `data: {"type":"activity"}`. The chat then resumes the
 * active stream or reloads its messages. Fed by PostgreSQL NOTIFY, so it works across servers.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = await params;
  const thread = await prisma().thread.findUnique({ where: { id }, select: { resourceId: true } });
  if (thread && thread.resourceId !== actor.id) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');

  const runIds = new Set<string>();
  const encoder = new TextEncoder();
  const unsubscribers: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const close = () => {
    clearTimeout(timer);
    clearInterval(keepalive);
    for (const unsubscribe of unsubscribers) unsubscribe();
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
      const activity = () => {
        clearTimeout(timer);
        timer = setTimeout(() => send('data: {"type":"activity"}\n\n'), DEBOUNCE_MS);
      };
      const ofThread = (payload: string) => {
        try {
          const parsed = JSON.parse(payload) as { threadId?: string; runId?: string; rootRunId?: string };
          if (parsed.threadId !== id) return;
          for (const runId of [parsed.runId, parsed.rootRunId]) if (runId) runIds.add(runId);
          activity();
        } catch {
          // Not ours to parse; ignore.
        }
      };
      unsubscribers.push(await notifications().subscribe('countersign_runs', ofThread));
      unsubscribers.push(await notifications().subscribe('countersign_pending', ofThread));
      unsubscribers.push(
        await notifications().subscribe('countersign_run_events', (runId) => {
          if (runIds.has(runId)) activity();
        }),
      );
      const runs = await prisma().run.findMany({ where: { threadId: id }, select: { id: true } });
      for (const run of runs) runIds.add(run.id);
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
