import { requireActor } from '@/lib/auth/session';
import { subscribeThreadActivity } from '@/lib/chat/thread-activity';
import { parseValue, withErrors } from '@/lib/http/errors';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { noticeStreamResponse } from '@/lib/http/notify-sse';
import { assertThreadOwner } from '@/lib/runs/access';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/**
 * Server-Sent Events telling an open chat that its thread changed elsewhere (a reviewer decided,
 * a run continued on another server): `data: {"type":"activity"}`. The chat then resumes the
 * active stream or reloads its messages. Fed by PostgreSQL NOTIFY, so it works across servers.
 * Only for a thread that exists, is not deleted and is the caller's: a thread id nobody has used yet answers 404
 * (else whoever creates that id later would be watched). 429 TOO_MANY_STREAMS past the per-person cap;
 * 400 BAD_REQUEST for an id outside THREAD_ID.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = parseValue(await params, threadParamsSchema);
  await assertThreadOwner({ threadId: id, actor, mustExist: true });
  return noticeStreamResponse({
    request,
    actorId: actor.id,
    event: '{"type":"activity"}',
    debounceMs: 100,
    subscribe: (notify) => subscribeThreadActivity(id, notify),
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
