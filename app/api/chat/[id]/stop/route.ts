import { requireActor } from '@/lib/auth/session';
import { threadParamsSchema } from '@/lib/chat/thread-id';
import { parseValue, withErrors } from '@/lib/http/errors';
import { otherMethods } from '@/lib/http/methods';
import { assertThreadOwner } from '@/lib/runs/access';
import { getAgent } from '@/lib/runs/agents';

type Params = { params: Promise<{ id: string }> };

/**
 * POST /api/chat/{id}/stop: Stop on the thread's running turn (behaviour §5b), on whichever server
 * runs it. 202 `{ stopping: true, runId }` when a turn was running (it ends "Stopped" within about
 * a second; the chat's stream shows it); 200 `{ stopping: false, runId: null }` when none was (a
 * waiting approval is not running). 404 for someone else's or a deleted thread; 400 BAD_REQUEST for
 * an id outside THREAD_ID. The owner's session or an API key with `agents:run`.
 */
export const POST = withErrors(async (request: Request, { params }: Params) => {
  const actor = await requireActor(request);
  const { id } = parseValue(await params, threadParamsSchema);
  const thread = await assertThreadOwner({ threadId: id, actor });
  const stopped = thread ? await getAgent(thread.agentId).stop({ threadId: id }) : null;
  if (!stopped) return Response.json({ stopping: false, runId: null });
  return Response.json({ stopping: true, runId: stopped.runId }, { status: 202 });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
