import { requireActor } from '@/lib/auth/session';
import { threadMessagesFor } from '@/lib/chat/threads';
import { withErrors } from '@/lib/http/errors';

type Params = { params: Promise<{ id: string }> };

/** The thread's messages as `useChat` messages (empty for a thread not started yet; 404 for someone else's). */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const { id } = await params;
  const actor = await requireActor(request);
  return Response.json({ messages: await threadMessagesFor({ threadId: id, actor }) });
});
