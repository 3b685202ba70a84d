import { createUIMessageStreamResponse } from 'ai';
import { requireActor } from '@/lib/auth/session';
import { findActiveSegment, tailRunEvents } from '@/lib/chat/tail';
import { ApiError, withErrors } from '@/lib/http/errors';
import { acquireStreamSlot, releaseWhenDone } from '@/lib/http/stream-slots';
import { prisma } from '@/lib/store/db';
import { uiChunkTransform } from '@/lib/ui-stream/map';

type Params = { params: Promise<{ id: string }> };

/**
 * Resumes the thread's active stream for `useChat({ resume: true })`: replays the whole assistant
 * message the active segment streams into (useChat replaces that message with what it receives)
 * and follows it live, from whichever server writes it. 204 when nothing is active; 429
 * TOO_MANY_STREAMS past the per-person cap of live streams.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = await params;
  const thread = await prisma().thread.findUnique({ where: { id }, select: { resourceId: true } });
  if (!thread) return new Response(null, { status: 204 });
  if (thread.resourceId !== actor.id) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  const active = await findActiveSegment(id);
  if (!active) return new Response(null, { status: 204 });
  const release = acquireStreamSlot(actor.id);
  const chunks = tailRunEvents({
    runId: active.runId,
    fromEventId: active.messageStartEventId,
    untilAfterEventId: active.startEventId,
    messageId: active.messageId,
  });
  const stream = releaseWhenDone({ stream: chunks.pipeThrough(uiChunkTransform(active.runId)), release, signal: request.signal });
  return createUIMessageStreamResponse({ stream });
});
