import { requireActor } from '@/lib/auth/session';
import { findActiveSegment, tailRunEvents } from '@/lib/chat/tail';
import { parseValue, withErrors } from '@/lib/http/errors';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { uiMessageStreamResponse } from '@/lib/http/sse';
import { acquireStreamSlot, releaseWhenDone } from '@/lib/http/stream-slots';
import { assertThreadOwner } from '@/lib/runs/access';
import { uiChunkTransform } from '@/lib/ui-stream/map';
import { describeAppCall } from '@/lib/chat/describe';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/**
 * Resumes the thread's active stream for `useChat({ resume: true })`: replays the whole assistant
 * message the active segment streams into (useChat replaces that message with what it receives)
 * and follows it live, from whichever server writes it. 204 when nothing is active; 429
 * TOO_MANY_STREAMS past the per-person cap of live streams; 400 BAD_REQUEST for an id outside THREAD_ID.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = parseValue(await params, threadParamsSchema);
  // Someone else's or a deleted thread is 404; one not started yet has nothing to resume.
  const thread = await assertThreadOwner({ threadId: id, actor });
  if (!thread) return new Response(null, { status: 204 });
  const active = await findActiveSegment(id);
  if (!active) return new Response(null, { status: 204 });
  const release = acquireStreamSlot(actor.id);
  const chunks = tailRunEvents({
    runId: active.runId,
    fromEventId: active.messageStartEventId,
    untilAfterEventId: active.startEventId,
    messageId: active.messageId,
  });
  const stream = releaseWhenDone({ stream: chunks.pipeThrough(uiChunkTransform(active.runId, describeAppCall)), release, signal: request.signal });
  // With keep-alive comments: a proxy must not cut a chat that waits on the model.
  return uiMessageStreamResponse(stream);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
