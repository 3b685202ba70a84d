import { requireActor } from '@/lib/auth/session';
import { subscribeThreadActivity } from '@/lib/chat/thread-activity';
import { parseValue, withErrors } from '@/lib/http/errors';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { noticeStreamResponse } from '@/lib/http/notify-sse';
import { assertThreadOwner } from '@/lib/runs/access';
import { otherMethods } from '@/lib/http/methods';
import { threadVersion } from '@/lib/store/thread-version';
import { chatEventsQuerySchema } from './schema';

type Params = { params: Promise<{ id: string }> };

/**
 * Server-Sent Events telling an open chat that its thread changed elsewhere (a reviewer decided,
 * a run continued on another server): `data: {"type":"activity"}`. The chat then resumes the
 * active stream or reloads its messages. Fed by PostgreSQL NOTIFY, so it works across servers.
 * With `?since=<version>` (the thread's version the page was rendered at, lib/store/thread-version.ts)
 * or a `Last-Event-ID` header (the version this feed last sent as `id:`, which a browser sends back
 * when it reconnects), the feed compares that version with the thread's once it listens, and sends
 * the event at once when they differ: a change made while the page connected is not missed.
 * Only for a thread that exists, is not deleted and is the caller's: a thread id nobody has used yet answers 404
 * (else whoever creates that id later would be watched). 429 TOO_MANY_STREAMS past the per-person cap;
 * 400 BAD_REQUEST for an id outside THREAD_ID or a `since` / `Last-Event-ID` that is not a version.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = parseValue(await params, threadParamsSchema);
  // The snapshot to compare with: the version this feed last sent (a browser's reconnect), else the page's.
  const lastEventId = request.headers.get('last-event-id');
  const { since } = parseValue({ since: lastEventId || new URL(request.url).searchParams.get('since') || undefined }, chatEventsQuerySchema);
  await assertThreadOwner({ threadId: id, actor, mustExist: true });
  return noticeStreamResponse({
    request,
    actorId: actor.id,
    event: '{"type":"activity"}',
    intervalMs: 100,
    subscribe: (notify) => subscribeThreadActivity(id, notify),
    catchUp: async () => {
      const version = await threadVersion(id);
      return { id: version, changed: since !== undefined && since !== version };
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
