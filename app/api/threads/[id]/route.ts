import { renameThreadSchema, threadParamsSchema } from './schema';
import { requireActor } from '@/lib/auth/session';
import { deleteThread, renameThread } from '@/lib/chat/threads';
import { parseJson, parseValue, readBodyText, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';

type Params = { params: Promise<{ id: string }> };

/**
 * Renames one of your threads: `{ title }` → `200 { thread: { id, title } }`.
 * Errors: 400 BAD_REQUEST (a title, or an id outside THREAD_ID), 401, 403 CSRF_ORIGIN, 404 NOT_FOUND (unknown, deleted or not yours).
 */
export const PATCH = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id: threadId } = parseValue(await params, threadParamsSchema);
  const { title } = parseJson(await readBodyText(request), renameThreadSchema);
  return Response.json({ thread: await renameThread({ threadId, actor, title }) });
});

/**
 * Deletes one of your threads → `200 { deleted: true, id }`. Refused while a call waits for a
 * decision or an answer, or while the agent works.
 * Errors: 400 BAD_REQUEST (an id outside THREAD_ID), 401, 403 CSRF_ORIGIN, 404 NOT_FOUND, 409 THREAD_HAS_PENDING_CALLS, 409 THREAD_BUSY.
 */
export const DELETE = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id: threadId } = parseValue(await params, threadParamsSchema);
  await deleteThread({ threadId, actor });
  return Response.json({ deleted: true, id: threadId });
});

export const { GET, POST, PUT, OPTIONS } = otherMethods('PATCH', 'DELETE');
