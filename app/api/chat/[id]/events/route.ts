import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { noticeStreamResponse } from '@/lib/http/notify-sse';
import { assertThreadOwner } from '@/lib/runs/access';
import { prisma } from '@/lib/store/db';
import { notifications } from '@/lib/store/listen';

type Params = { params: Promise<{ id: string }> };

/**
 * Server-Sent Events telling an open chat that its thread changed elsewhere (a reviewer decided,
 * a run continued on another server): `data: {"type":"activity"}`. The chat then resumes the
 * active stream or reloads its messages. Fed by PostgreSQL NOTIFY, so it works across servers.
 * Only for a thread that exists, is not deleted and is the caller's: a thread id nobody has used yet answers 404
 * (else whoever creates that id later would be watched). 429 TOO_MANY_STREAMS past the per-person cap.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = await params;
  await assertThreadOwner({ threadId: id, actor, mustExist: true });

  const runIds = new Set<string>();
  return noticeStreamResponse({
    request,
    actorId: actor.id,
    event: '{"type":"activity"}',
    debounceMs: 100,
    subscribe: async (notify) => {
      const ofThread = (payload: string) => {
        try {
          const parsed = JSON.parse(payload) as { threadId?: string; runId?: string; rootRunId?: string };
          if (parsed.threadId !== id) return;
          for (const runId of [parsed.runId, parsed.rootRunId]) if (runId) runIds.add(runId);
          notify();
        } catch {
          // Not ours to parse; ignore.
        }
      };
      const unsubscribers = [
        await notifications().subscribe('countersign_runs', ofThread),
        await notifications().subscribe('countersign_pending', ofThread),
        await notifications().subscribe('countersign_run_events', (runId) => {
          if (runIds.has(runId)) notify();
        }),
      ];
      for (const run of await prisma().run.findMany({ where: { threadId: id }, select: { id: true } })) runIds.add(run.id);
      return unsubscribers;
    },
  });
});
