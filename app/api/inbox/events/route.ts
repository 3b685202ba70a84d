import { requireActor } from '@/lib/auth/session';
import { withErrors } from '@/lib/http/errors';
import { noticeStreamResponse } from '@/lib/http/notify-sse';
import { notifications } from '@/lib/store/listen';
import { otherMethods } from '@/lib/http/methods';

/**
 * Server-Sent Events for the approval inbox: `data: {"type":"changed"}` whenever a pending call is
 * created or changes status anywhere (any server), from PostgreSQL NOTIFY. The inbox then reloads
 * its list. Source: behaviour §7 `GET /api/inbox/events`.
 */
export const GET = withErrors(async (request: Request) => {
  const actor = await requireActor(request, ['reviewer', 'admin']);
  return noticeStreamResponse({
    request,
    actorId: actor.id,
    event: '{"type":"changed"}',
    intervalMs: 150,
    subscribe: async (notify) => [await notifications().subscribe('countersign_pending', notify)],
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
