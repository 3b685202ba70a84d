import { requireActor } from '@/lib/auth/session';
import { loadThreadUIMessages } from '@/lib/chat/threads';
import { ApiError, withErrors } from '@/lib/http/errors';
import { prisma } from '@/lib/store/db';

type Params = { params: Promise<{ id: string }> };

/** The thread's messages as `useChat` messages (empty for a thread not started yet). */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const { id } = await params;
  const actor = await requireActor(request);
  const messages = await loadThreadUIMessages({ threadId: id, resourceId: actor.id });
  if (messages) return Response.json({ messages });
  const exists = await prisma().thread.count({ where: { id } });
  if (exists) throw new ApiError(404, 'NOT_FOUND', 'No such thread.');
  return Response.json({ messages: [] });
});
