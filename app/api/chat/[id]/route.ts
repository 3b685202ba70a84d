import { displayNames, requireActor } from '@/lib/auth/session';
import { peopleOnCards, threadMessagesFor } from '@/lib/chat/threads';
import { parseValue, withErrors } from '@/lib/http/errors';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/**
 * The thread's messages as `useChat` messages (empty for a thread not started yet; 404 for someone
 * else's; 400 BAD_REQUEST for an id outside THREAD_ID), and `people`: the name and email of everyone
 * its cards name (who decided, who approved so far), by user id, as the chat page shows them.
 */
export const GET = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = parseValue(await params, threadParamsSchema);
  const messages = await threadMessagesFor({ threadId: id, actor });
  return Response.json({ messages, people: await displayNames(peopleOnCards(messages)) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods('GET');
